"""timingwheel_test(): the project's GoogleTest cc_test in one line or two.

    load("//bazel:timingwheel_test.bzl", "timingwheel_test")

    timingwheel_test(
        name = "store_test",
        size = "small",
        deps = ["//durable:store"],
    )

is `cc_test(name = "store_test", size = "small", srcs = ["store_test.cc"],
deps = ["//durable:store", "@com_google_googletest//:gtest_main"])`.
"""

load("@rules_cc//cc:cc_test.bzl", "cc_test")

def timingwheel_test(name, srcs = None, deps = [], **kwargs):
    """A cc_test whose sources default to `<name>.cc`, linked with gtest_main.

    Args:
      name: the test's name.
      srcs: its sources; `[name + ".cc"]` when not given.
      deps: its dependencies; `@com_google_googletest//:gtest_main` is added.
      **kwargs: every other cc_test attribute (size, timeout, tags, data,
        env, ...), passed unchanged.
    """
    cc_test(
        name = name,
        srcs = srcs if srcs != None else [name + ".cc"],
        deps = deps + ["@com_google_googletest//:gtest_main"],
        **kwargs
    )

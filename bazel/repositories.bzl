"""timingwheel_dependencies(): the external repositories timingwheel needs.

Load it from any WORKSPACE (this one, or a consumer's):

    load("@timingwheel//bazel:repositories.bzl", "timingwheel_dependencies")
    timingwheel_dependencies()

Every repository is declared only if the workspace has not declared it
already (`maybe`), so a workspace that brings the real upstream archives of
Abseil (`com_google_absl`), GoogleTest (`com_google_googletest`) or Google
Benchmark (`com_github_google_benchmark`) keeps its own; declare them before
calling this macro.

Two groups of repositories are declared:

  * The libraries, backed by Debian's packages (libabsl-dev, libgtest-dev,
    libbenchmark-dev, libboost-dev for the benchmarks' Asio baseline as
    `@boost//:asio`, libpq-dev for //durable as `@libpq//:libpq`, and
    libcpp-httplib-dev for the metrics endpoint and `twctl serve` as
    `@cpp_httplib//:httplib`) and
    exposed under upstream's repository names and labels, for example `@com_google_absl//absl/status:statusor`.
  * With `offline_bazel_stubs = True` (the default): the three repositories
    that Debian's offline Bazel 4.2.3 would otherwise try to download
    (`rules_cc`, `rules_java`, `remote_coverage_tools`). On a current Bazel
    with network access pass `offline_bazel_stubs = False` and let Bazel
    provide its own: a stub `rules_cc` would shadow the real one.
"""

load("@bazel_tools//tools/build_defs/repo:utils.bzl", "maybe")
load("//third_party/debian:absl.bzl", "debian_absl_repository")
load("//third_party/debian:bazel_stubs.bzl", "remote_coverage_tools_stub", "rules_cc_stub")
load("//third_party/debian:httplib.bzl", "debian_httplib_repository")
load("//third_party/debian:libpq.bzl", "debian_libpq_repository")
load("//third_party/debian:libraries.bzl", "debian_benchmark_repository", "debian_boost_repository", "debian_googletest_repository")

def timingwheel_dependencies(offline_bazel_stubs = True):
    """Declares timingwheel's external repositories (each only once).

    Args:
      offline_bazel_stubs: declare local stand-ins for the repositories that
        Debian's offline Bazel 4.2.3 would download (rules_cc, rules_java,
        remote_coverage_tools). Set False on a Bazel with network access.
    """
    maybe(debian_absl_repository, name = "com_google_absl")
    maybe(debian_googletest_repository, name = "com_google_googletest")
    maybe(debian_benchmark_repository, name = "com_github_google_benchmark")
    maybe(debian_boost_repository, name = "boost")
    maybe(debian_libpq_repository, name = "libpq")
    maybe(debian_httplib_repository, name = "cpp_httplib")
    if offline_bazel_stubs:
        maybe(rules_cc_stub, name = "rules_cc")
        maybe(remote_coverage_tools_stub, name = "remote_coverage_tools")
        maybe(
            native.local_repository,
            name = "rules_java",
            path = "/usr/share/bazel/rules/java",
        )

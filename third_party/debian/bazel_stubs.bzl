"""Local stand-ins for repositories Debian's offline Bazel 4.2.3 would fetch.

Bazel 4.2.3 loads `@rules_cc` and `@remote_coverage_tools` while analysing
C++ targets and tests, and would download them. These rules write the smallest
repositories that satisfy it instead:

  * rules_cc_stub: `cc/defs.bzl` re-exports the native C++ rules (Debian's
    bazel-rules-cc is too new for 4.2.3).
  * remote_coverage_tools_stub: the two empty filegroups `bazel test` needs
    (coverage itself then does not work).

They are only for an offline Bazel; on a Bazel with network access they would
shadow the real repositories (see //bazel:repositories.bzl).
"""

_RULES_CC_DEFS = '''"""Re-exports Bazel's native C++ rules (offline stand-in for rules_cc)."""

def cc_library(**kwargs):
    native.cc_library(**kwargs)

def cc_binary(**kwargs):
    native.cc_binary(**kwargs)

def cc_test(**kwargs):
    native.cc_test(**kwargs)

def cc_import(**kwargs):
    native.cc_import(**kwargs)

def cc_toolchain(**kwargs):
    native.cc_toolchain(**kwargs)

def cc_toolchain_suite(**kwargs):
    native.cc_toolchain_suite(**kwargs)

def objc_library(**kwargs):
    native.objc_library(**kwargs)
'''

def _rules_cc_stub_impl(ctx):
    ctx.file("WORKSPACE", 'workspace(name = "rules_cc")\n')
    ctx.file("BUILD.bazel", "")
    ctx.file("cc/defs.bzl", _RULES_CC_DEFS)
    ctx.file("cc/BUILD.bazel", "\n".join([
        'package(default_visibility = ["//visibility:public"])',
        "exports_files([\"defs.bzl\"])",
        'alias(name = "toolchain_type", actual = "@bazel_tools//tools/cpp:toolchain_type")',
        "",
    ]))

def _remote_coverage_tools_stub_impl(ctx):
    ctx.file("WORKSPACE", 'workspace(name = "remote_coverage_tools")\n')
    ctx.file("BUILD.bazel", "\n".join([
        'package(default_visibility = ["//visibility:public"])',
        'filegroup(name = "coverage_report_generator", srcs = [])',
        'filegroup(name = "lcov_merger", srcs = [])',
        "",
    ]))

rules_cc_stub = repository_rule(
    implementation = _rules_cc_stub_impl,
    doc = "Offline stand-in for @rules_cc on Debian's Bazel 4.2.3.",
)

remote_coverage_tools_stub = repository_rule(
    implementation = _remote_coverage_tools_stub_impl,
    doc = "Offline stand-in for @remote_coverage_tools on Debian's Bazel 4.2.3.",
)

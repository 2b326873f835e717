"""Local stand-ins for repositories Debian's offline Bazel 4.2.3 would fetch.

Bazel 4.2.3 loads `@rules_cc` and `@remote_coverage_tools` while analysing
C++ targets and tests, and would download them. These rules write the smallest
repositories that satisfy it instead:

  * rules_cc_stub: `cc/cc_library.bzl`, `cc/cc_binary.bzl`, `cc/cc_test.bzl`
    (and the other C++ rules, one file each, as in rules_cc) wrap the native
    rules, and `cc/defs.bzl` re-exports them all (Debian's bazel-rules-cc is
    too new for 4.2.3).
  * remote_coverage_tools_stub: the two empty filegroups `bazel test` needs
    (coverage itself then does not work).

They are only for an offline Bazel; on a Bazel with network access they would
shadow the real repositories (see //bazel:repositories.bzl).
"""

# Rules with a file of their own in rules_cc's cc/ (cc/cc_library.bzl and so
# on: what the project's BUILD files load). cc/defs.bzl re-exports them all, as
# rules_cc's does, plus the two toolchain rules (in rules_cc those live under
# cc/toolchains/, which nothing here loads).
_RULES_CC_RULES = [
    "cc_binary",
    "cc_import",
    "cc_library",
    "cc_test",
    "objc_library",
]

_DEFS_TOOLCHAIN_RULES = """
def cc_toolchain(**kwargs):
    native.cc_toolchain(**kwargs)

def cc_toolchain_suite(**kwargs):
    native.cc_toolchain_suite(**kwargs)
"""

_RULE_FILE = '''"""{rule}: Bazel's native rule (offline stand-in for rules_cc)."""

def {rule}(**kwargs):
    native.{rule}(**kwargs)
'''

def _rules_cc_stub_impl(ctx):
    ctx.file("WORKSPACE", 'workspace(name = "rules_cc")\n')
    ctx.file("BUILD.bazel", "")
    defs = ['"""Re-exports Bazel\'s native C++ rules (offline stand-in for rules_cc)."""', ""]
    for rule in _RULES_CC_RULES:
        ctx.file("cc/%s.bzl" % rule, _RULE_FILE.format(rule = rule))
        defs.append('load("//cc:%s.bzl", _%s = "%s")' % (rule, rule, rule))
    defs.append("")
    defs.extend(["%s = _%s" % (rule, rule) for rule in _RULES_CC_RULES])
    ctx.file("cc/defs.bzl", "\n".join(defs) + "\n" + _DEFS_TOOLCHAIN_RULES)
    ctx.file("cc/BUILD.bazel", "\n".join([
        'package(default_visibility = ["//visibility:public"])',
        "exports_files(glob([\"*.bzl\"]))",
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

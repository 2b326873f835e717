#!/usr/bin/env python3
"""Writes the CMake build's generated files from the Bazel BUILD files.

Bazel is the reference build. The CMake build (CMakeLists.txt) keeps the
same sources, tests and dependencies by reading them from the BUILD.bazel
files instead of repeating them by hand:

  cmake/timingwheel_sources.cmake   the sources and headers of each library
                                    users link (timer, purgatory, durable, ...)
  tests/**/CMakeLists.txt,          every test, test helper and benchmark,
  benchmarks/**/CMakeLists.txt      one call per Bazel rule (cmake/TimingwheelRules.cmake)

Usage:
  python3 tools/cmake/bazel_to_cmake.py          rewrite the generated files
  python3 tools/cmake/bazel_to_cmake.py --check  exit 1 if any is out of date

The BUILD files are evaluated as Python with stand-ins for the few Bazel
functions they call. Labels map to CMake targets by package (see GROUPS and
cmake_target()); a label this script does not know stops it with an error,
so a new dependency cannot be dropped silently.
"""

import glob as globlib
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# The libraries users link, each the union of the non-test cc_library rules
# of its Bazel packages (Bazel splits them finer for layering_check).
# group -> its Bazel packages; GROUP_TARGETS names its CMake target.
GROUPS = {
    "TIMER": ["timer", "timer/internal"],
    "TIMER_TESTING": ["timer/testing"],
    "PURGATORY": ["purgatory", "purgatory/internal"],
    "PURGATORY_TESTING": ["purgatory/testing"],
    "DURABLE": ["durable", "durable/recurrence", "durable/sql", "durable/engine",
                "durable/client"],
    "DURABLE_TESTING": ["durable/testing"],
    "TWCTL": ["tools/twctl"],
}
# Rules of a group's package that form a library of their own.
SPLIT_RULES = {
    "//durable:metrics_http": "METRICS_HTTP",
    "//tools/twctl:twctl": None,  # The binary (main.cc): tools/twctl/CMakeLists.txt.
}
GROUP_TARGETS = {
    "TIMER": "timingwheel_timer",
    "TIMER_TESTING": "timingwheel_timer_testing",
    "PURGATORY": "timingwheel_purgatory",
    "PURGATORY_TESTING": "timingwheel_purgatory_testing",
    "DURABLE": "timingwheel_durable",
    "METRICS_HTTP": "timingwheel_metrics_http",
    "DURABLE_TESTING": "timingwheel_durable_testing",
    "TWCTL": "timingwheel_twctl_lib",
}
# Packages whose rules become generated CMakeLists.txt files.
GENERATED_ROOTS = ["tests", "benchmarks"]
# Separate Bazel workspaces inside the tree (not part of //...).
SKIPPED_PACKAGES = {"tests/consumer"}

EXTERNAL = {
    "@com_google_googletest//:gtest": "GTest::gtest;GTest::gmock",
    "@com_google_googletest//:gtest_main": "GTest::gtest;GTest::gmock;GTest::gtest_main",
    "@com_github_google_benchmark//:benchmark": "benchmark::benchmark",
    "@com_github_google_benchmark//:benchmark_main": "benchmark::benchmark_main",
    "@libpq": "timingwheel_libpq",
    "@libpq//:libpq": "timingwheel_libpq",
    "@cpp_httplib//:httplib": "timingwheel_httplib",
    "@boost//:asio": "Boost::headers",
}
# Abseil labels whose CMake target is not absl::<target name>.
ABSL_RENAMES = {"flag": "flags", "parse": "flags_parse"}
SIZE_TIMEOUTS = {"small": 60, "medium": 300, "large": 900, "enormous": 3600}


class Rule:
    def __init__(self, kind, package, attrs):
        self.kind = kind
        self.package = package
        self.attrs = attrs
        self.name = attrs["name"]

    @property
    def label(self):
        return "//%s:%s" % (self.package, self.name)


def normalize(label, package):
    """An absolute label (//pkg:name) for `label` seen from `package`."""
    if label.startswith(":"):
        return "//%s%s" % (package, label)
    if label.startswith("//") and ":" not in label:
        return "%s:%s" % (label, label.rsplit("/", 1)[-1])
    if label.startswith("//") or label.startswith("@"):
        return label
    return "//%s:%s" % (package, label)  # A file or rule name in the package.


def load_package(package):
    """The rules of one BUILD.bazel file, evaluated with stand-ins."""
    rules = []
    pkg_dir = os.path.join(ROOT, package)

    def rule(kind):
        def add(**attrs):
            rules.append(Rule(kind, package, attrs))
        return add

    def glob(include, exclude=(), **_):
        found = set()
        for pattern in include:
            for path in globlib.glob(os.path.join(pkg_dir, pattern), recursive=True):
                found.add(os.path.relpath(path, pkg_dir))
        for pattern in exclude:
            for path in globlib.glob(os.path.join(pkg_dir, pattern), recursive=True):
                found.discard(os.path.relpath(path, pkg_dir))
        return sorted(found)

    def timingwheel_test(name, srcs=None, deps=(), **kwargs):
        rules.append(Rule("cc_test", package, dict(
            name=name, srcs=srcs if srcs is not None else [name + ".cc"],
            deps=list(deps) + ["@com_google_googletest//:gtest_main"], **kwargs)))

    scope = {
        "load": lambda *a, **k: None,
        "package": lambda **k: None,
        "exports_files": lambda *a, **k: None,
        "config_setting": lambda **k: None,
        "select": lambda d: d.get("//conditions:default", []),
        "glob": glob,
        "cc_library": rule("cc_library"),
        "cc_binary": rule("cc_binary"),
        "cc_test": rule("cc_test"),
        "sh_test": rule("sh_test"),
        "genrule": rule("genrule"),
        "filegroup": rule("filegroup"),
        "alias": rule("alias"),
        "timingwheel_test": timingwheel_test,
    }
    with open(os.path.join(pkg_dir, "BUILD.bazel")) as f:
        exec(compile(f.read(), os.path.join(package, "BUILD.bazel"), "exec"), scope)
    return rules


def all_packages():
    packages = []
    for dirpath, dirnames, filenames in os.walk(ROOT):
        dirnames[:] = sorted(d for d in dirnames
                             if not d.startswith(".") and not d.startswith("bazel-")
                             and d != "build")
        if "BUILD.bazel" in filenames:
            package = os.path.relpath(dirpath, ROOT).replace(os.sep, "/")
            if package == ".":
                package = ""
            if any(package == s or package.startswith(s + "/") for s in SKIPPED_PACKAGES):
                continue
            packages.append(package)
    return packages


class Workspace:
    def __init__(self):
        self.rules = {}
        self.by_package = {}
        for package in all_packages():
            self.by_package[package] = load_package(package)
            for r in self.by_package[package]:
                self.rules[r.label] = r

    def resolve_alias(self, label):
        r = self.rules.get(label)
        while r is not None and r.kind == "alias":
            label = normalize(r.attrs["actual"], r.package)
            r = self.rules.get(label)
        return label

    def group_of(self, label):
        label = self.resolve_alias(label)
        if label in SPLIT_RULES:
            return SPLIT_RULES[label]
        package = label[2:].split(":")[0]
        for group, packages in GROUPS.items():
            if package in packages:
                return group
        return None

    def files(self, labels, package):
        """Source paths (relative to ROOT) of files and filegroups."""
        out = []
        for label in labels:
            full = normalize(label, package)
            r = self.rules.get(full)
            if r is not None and r.kind == "filegroup":
                out.extend(self.files(r.attrs.get("srcs", []), r.package))
            elif r is None:
                pkg, name = full[2:].split(":")
                out.append(os.path.join(pkg, name) if pkg else name)
            else:
                raise SystemExit("not a file: %s" % full)
        return out


def cmake_name(label):
    pkg, name = label[2:].split(":")
    return (pkg.replace("/", "_") + "_" + name).replace("-", "_")


def cmake_target(ws, label, package):
    """The CMake target (or ;-list) that stands for Bazel label `label`."""
    if label.startswith("@com_google_absl//absl/"):
        name = label.split(":")[1] if ":" in label else label.rsplit("/", 1)[1]
        return "absl::" + ABSL_RENAMES.get(name, name)
    if label.startswith("@"):
        if label not in EXTERNAL:
            raise SystemExit("%s: unknown external label %s (add it to EXTERNAL)" % (package, label))
        return EXTERNAL[label]
    full = ws.resolve_alias(normalize(label, package))
    if full == "//tools/twctl:twctl":
        return "twctl"
    group = ws.group_of(full)
    if group is not None:
        return GROUP_TARGETS[group]
    if full not in ws.rules:
        raise SystemExit("%s: unknown label %s" % (package, full))
    return cmake_name(full)


def sources_file(ws):
    lines = [
        "# Generated by tools/cmake/bazel_to_cmake.py from the BUILD.bazel files:",
        "# do not edit. The sources and headers of each library users link.",
        "",
    ]
    for group in list(GROUPS) + ["METRICS_HTTP"]:
        srcs, hdrs, deps = set(), set(), set()
        for label, r in sorted(ws.rules.items()):
            if r.kind != "cc_library" or r.attrs.get("testonly") and group not in (
                    "TIMER_TESTING", "PURGATORY_TESTING", "DURABLE_TESTING"):
                continue
            if ws.group_of(label) != group:
                continue
            # A file may be another package's (//durable:admin_store.h).
            for path in ws.files(r.attrs.get("srcs", []) + r.attrs.get("hdrs", []),
                                 r.package):
                (srcs if path.endswith(".cc") else hdrs).add(path)
            for d in r.attrs.get("deps", []):
                for t in cmake_target(ws, d, r.package).split(";"):
                    if t != GROUP_TARGETS[group]:
                        deps.add(t)
        lines.append("set(TIMINGWHEEL_%s_SOURCES" % group)
        lines += ["  ${PROJECT_SOURCE_DIR}/%s" % s for s in sorted(srcs)]
        lines.append(")")
        lines.append("set(TIMINGWHEEL_%s_HEADERS" % group)
        lines += ["  %s" % h for h in sorted(hdrs)]
        lines.append(")")
        lines.append("set(TIMINGWHEEL_%s_DEPS" % group)
        lines += ["  %s" % d for d in sorted(deps)]
        lines.append(")")
        lines.append("")
    return "\n".join(lines)


def cmake_list(key, values):
    if not values:
        return []
    out = ["  " + key]
    out += ["    %s" % v for v in values]
    return out


def location(ws, expr, package):
    """$(location X) / $(rootpath X) of a target or a file, for CMake."""
    label = normalize(expr, package)
    r = ws.rules.get(ws.resolve_alias(label))
    if r is not None and r.kind in ("cc_binary", "cc_test"):
        return "$<TARGET_FILE:%s>" % cmake_target(ws, label, package)
    return "${PROJECT_SOURCE_DIR}/" + ws.files([label], package)[0]


def expand(ws, text, package):
    """Expands $(location X) and $(rootpath X) in an attribute value."""
    for fn in ("location", "rootpath"):
        while "$(%s " % fn in text:
            start = text.index("$(%s " % fn)
            end = text.index(")", start)
            target = text[start + len(fn) + 3:end]
            text = text[:start] + location(ws, target, package) + text[end + 1:]
    return text


def package_file(ws, package, subdirs):
    out = [
        "# Generated by tools/cmake/bazel_to_cmake.py from %s/BUILD.bazel:" % package,
        "# do not edit; change the BUILD.bazel file and rerun the script.",
        "",
    ]
    for sub in subdirs:
        out.append("add_subdirectory(%s)" % sub)
    if subdirs:
        out.append("")
    for r in ws.by_package.get(package, []):
        a = r.attrs
        tags = a.get("tags", [])
        deps = []
        for d in a.get("deps", []):
            for t in cmake_target(ws, d, package).split(";"):
                if t not in deps:
                    deps.append(t)
        if r.kind in ("filegroup", "alias"):
            continue
        if r.kind == "genrule":
            srcs = ws.files(a.get("srcs", []), package)
            tools = ws.files(a.get("tools", []), package)
            cmd = a["cmd"].replace("$(SRCS)", " ".join(
                "${PROJECT_SOURCE_DIR}/" + s for s in srcs))
            cmd = cmd.replace("$@", "${CMAKE_CURRENT_BINARY_DIR}/" + a["outs"][0])
            cmd = expand(ws, cmd, package)
            out.append("timingwheel_genrule(")
            out.append("  OUTPUT ${CMAKE_CURRENT_BINARY_DIR}/%s" % a["outs"][0])
            out += cmake_list("DEPENDS", ["${PROJECT_SOURCE_DIR}/" + s for s in srcs + tools])
            out.append('  COMMAND "%s"' % cmd)
            out.append(")")
        elif r.kind in ("cc_library", "cc_binary", "cc_test"):
            srcs = []
            for s in a.get("srcs", []):
                full = normalize(s, package)
                if full in ws.rules and ws.rules[full].kind == "genrule":
                    srcs.append("${CMAKE_CURRENT_BINARY_DIR}/" + ws.rules[full].attrs["outs"][0])
                else:
                    srcs.append(s)
            srcs += a.get("hdrs", [])
            if "manual" in tags and r.kind == "cc_test":
                out.append("# %s: tagged manual in Bazel (not part of //...)." % r.label)
                kind = "timingwheel_cc_binary"
            else:
                kind = {"cc_library": "timingwheel_cc_library",
                        "cc_binary": "timingwheel_cc_binary",
                        "cc_test": "timingwheel_cc_test"}[r.kind]
            out.append("%s(" % kind)
            out.append("  NAME %s" % cmake_name(r.label))
            if r.kind != "cc_library":
                out.append("  OUTPUT_NAME %s" % r.name)
            if r.kind == "cc_test" and "manual" not in tags:
                out.append("  TEST_NAME %s" % r.label)
                out.append("  TIMEOUT %d" % SIZE_TIMEOUTS[a.get("size", "medium")])
                labels = [a.get("size", "medium")] + [t for t in tags if t != "exclusive"]
                out += cmake_list("LABELS", labels)
                if "exclusive" in tags:
                    out.append("  RUN_SERIAL")
                env = ["%s=%s" % (k, expand(ws, v, package))
                       for k, v in sorted(a.get("env", {}).items())]
                out += cmake_list("ENV", env)
                out += cmake_list("ARGS", [expand(ws, x, package)
                                           for x in a.get("args", [])])
                out += cmake_list("DATA", [cmake_target(ws, d, package)
                                           for d in a.get("data", [])
                                           if normalize(d, package) in ws.rules or
                                           ws.group_of(normalize(d, package))])
            out += cmake_list("SRCS", srcs)
            out += cmake_list("DEPS", deps)
            out += cmake_list("DEFINES", a.get("local_defines", []))
            out += cmake_list("COPTS", [c for c in a.get("copts", [])
                                        if c not in ("-Wall", "-Werror")])
            if "benchmark" in tags:
                out.append("  BENCHMARK")
            if a.get("testonly") or r.kind == "cc_test":
                out.append("  TESTONLY")
            out.append(")")
        elif r.kind == "sh_test":
            data = a.get("data", [])
            built = [d for d in data if ws.resolve_alias(normalize(d, package)) in ws.rules
                     and ws.rules[ws.resolve_alias(normalize(d, package))].kind
                     in ("cc_binary", "cc_test")]
            out.append("timingwheel_sh_test(")
            out.append("  TEST_NAME %s" % r.label)
            out.append("  SCRIPT ${PROJECT_SOURCE_DIR}/%s/%s" % (package, a["srcs"][0]))
            out.append("  TIMEOUT %d" % SIZE_TIMEOUTS[a.get("size", "medium")])
            out += cmake_list("LABELS", [a.get("size", "medium")] +
                              [t for t in tags if t != "exclusive"])
            if "exclusive" in tags:
                out.append("  RUN_SERIAL")
            out += cmake_list("ARGS", [expand(ws, x, package) for x in a.get("args", [])])
            out += cmake_list("DATA", [cmake_target(ws, d, package) for d in built])
            # Bazel runs a test in its runfiles tree: the source files at
            # their paths, and the built binaries too. CTest runs it in the
            # source tree when it reads only sources, else in the build tree
            # (where the binaries sit at their Bazel paths).
            out.append("  WORKING_DIRECTORY %s" % (
                "${PROJECT_BINARY_DIR}" if built else "${PROJECT_SOURCE_DIR}"))
            out.append(")")
        else:
            raise SystemExit("%s: rule kind %s not handled" % (r.label, r.kind))
        out.append("")
    return "\n".join(out).rstrip("\n") + "\n"


def generated_files(ws):
    files = {"cmake/timingwheel_sources.cmake": sources_file(ws)}
    packages = [p for p in ws.by_package
                if any(p == g or p.startswith(g + "/") for g in GENERATED_ROOTS)]
    dirs = set(packages)
    for p in packages:  # Parent folders without a BUILD file still chain.
        parts = p.split("/")
        for i in range(1, len(parts)):
            dirs.add("/".join(parts[:i]))
    for d in sorted(dirs):
        subdirs = sorted(x.split("/")[-1] for x in dirs
                         if x.startswith(d + "/") and "/" not in x[len(d) + 1:])
        files[d + "/CMakeLists.txt"] = package_file(ws, d, subdirs)
    return files


def main():
    check = "--check" in sys.argv[1:]
    ws = Workspace()
    stale = []
    for path, text in sorted(generated_files(ws).items()):
        full = os.path.join(ROOT, path)
        old = open(full).read() if os.path.exists(full) else None
        if old != text:
            stale.append(path)
            if not check:
                with open(full, "w") as f:
                    f.write(text)
    if check and stale:
        print("bazel_to_cmake: out of date (run python3 tools/cmake/bazel_to_cmake.py):")
        for path in stale:
            print("  " + path)
        return 1
    if not check:
        for path in stale:
            print("wrote " + path)
    return 0


if __name__ == "__main__":
    sys.exit(main())

# extract_examples.awk: turns every ```cpp block of a Markdown file into one
# C++ translation unit, so that a test can compile the README as written.
#
# The blocks are read as one program, in order (a later block may use a class
# an earlier one defined), inside namespace `readme`, each behind a #line
# directive so that a compiler error names the README's own line. #include
# lines are hoisted to the top of the file. A block that defines `main` is
# compiled too, under another name (readme_example_N_main). Statements belong
# inside functions in the README, as they would in a real program.
#
# Usage: awk -f extract_examples.awk README.md > readme_examples.cc

/^```cpp[ \t]*$/ { in_block = 1; n++; start[n] = NR + 1; body[n] = ""; next }
in_block && /^```[ \t]*$/ { in_block = 0; next }
in_block {
  if ($0 ~ /^#include[ \t]/) {
    if (!($0 in seen)) { seen[$0] = 1; includes = includes $0 "\n" }
    body[n] = body[n] "\n"  # Keeps the #line numbering right.
  } else {
    body[n] = body[n] $0 "\n"
  }
  next
}
END {
  if (in_block) { print "unterminated ```cpp block" > "/dev/stderr"; exit 1 }
  if (n == 0) { print "no ```cpp block found" > "/dev/stderr"; exit 1 }
  printf "// Generated from %s by tests/readme/extract_examples.awk.\n", FILENAME
  print "#include \"tests/readme/readme_prelude.h\""
  printf "%s", includes
  for (i = 1; i <= n; i++) {
    printf "\n#define main readme_example_%d_main\n", i
    printf "namespace readme {\n"
    printf "using namespace ::readme_prelude;  // NOLINT\n"
    printf "#line %d \"%s\"\n", start[i], FILENAME
    printf "%s", body[i]
    printf "}  // namespace readme\n#undef main\n"
  }
  printf "\nint ReadmeExampleCount() { return %d; }\n", n
}

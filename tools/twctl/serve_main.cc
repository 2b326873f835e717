// Copyright 2026 The timingwheel Authors.
//
// twctl_serve: `twctl serve` as a binary of its own, for as long as the
// twctl tool does not register the subcommand:
//
//   twctl_serve --db CONNINFO [--listen 127.0.0.1:8080] [--token T]
//
// The connection string comes from --db, else from $TWCTL_DB.

#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "tools/twctl/serve_command.h"

int main(int argc, char** argv) {
  std::string conninfo;
  if (const char* env = std::getenv("TWCTL_DB")) conninfo = env;
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "serve" && args.empty() && i == 1) continue;
    if (arg == "--db" && i + 1 < argc) {
      conninfo = argv[++i];
    } else if (arg.rfind("--db=", 0) == 0) {
      conninfo = arg.substr(5);
    } else {
      args.push_back(arg);
    }
  }
  if (conninfo.empty()) {
    std::cerr << "twctl serve: give the store's connection string with --db "
                 "CONNINFO or $TWCTL_DB\n";
    return 2;
  }
  return timingwheel::twctl::RunServe(conninfo, args, std::cout, std::cerr);
}

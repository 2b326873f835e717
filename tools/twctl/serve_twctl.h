// Copyright 2026 The timingwheel Authors.
//
// serve_twctl.h
// -----------------------------------------------------------------------------
//
// `twctl serve` in twctl's command table (commands.h): the entry that
// commands.cc lists, and the adapter from twctl's parsed arguments to the
// dashboard (serve_command.h).
//
//   twctl [--db CONNINFO] serve [--listen HOST:PORT] [--token T]
//                               [--token-file F] [--page-size N]
//
// Tested end to end by tests/tools/twctl/dashboard_browser_test (through
// the twctl binary).

#ifndef TIMINGWHEEL_TOOLS_TWCTL_SERVE_TWCTL_H_
#define TIMINGWHEEL_TOOLS_TWCTL_SERVE_TWCTL_H_

#include "tools/twctl/commands.h"

namespace timingwheel {
namespace twctl {

// ServeCommand()
//
// The `serve` entry of `Commands()`.
Command ServeCommand();

// RunServeCommand()
//
// Runs the dashboard on `context.admin` until SIGINT or SIGTERM.
int RunServeCommand(Context& context);

}  // namespace twctl
}  // namespace timingwheel

#endif  // TIMINGWHEEL_TOOLS_TWCTL_SERVE_TWCTL_H_

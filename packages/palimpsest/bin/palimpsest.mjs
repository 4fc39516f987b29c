#!/usr/bin/env node
// The `palimpsest` command: @palimpsest/cli's bin (the compiled CLI, run in this process).
import "@palimpsest/cli/bin";

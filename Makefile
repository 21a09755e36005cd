# SPDX-License-Identifier: GPL-2.0-or-later
# Two entry points: 'make run' and 'make test'. Everything else is meson.
BUILD ?= build

.PHONY: run test deps build clean

run: deps build
	./$(BUILD)/cli/latscope noise --duration 10s --cpus "$$(cat /sys/devices/system/cpu/online)" --explain

test: deps build
	meson test -C $(BUILD) --print-errorlogs
	./scripts/check-package.sh

deps:
	./scripts/install-deps.sh

build:
	[ -f $(BUILD)/build.ninja ] || meson setup $(BUILD) -Dwerror=true
	meson compile -C $(BUILD)

clean:
	rm -rf $(BUILD)

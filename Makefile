# SPDX-License-Identifier: GPL-2.0-or-later
# Two entry points: 'make run' and 'make test'. Everything else is meson.
# ('make fuzz' runs the fuzzers longer than the 20 s each 'make test' gives them.)
BUILD ?= build
SANITIZE_BUILD ?= build-sanitize
FUZZ_SECONDS ?= 120
# the system tests that never measure (fixtures, usage errors, refusals, the
# read-only audit), and the monitor's, which measure for as long as it runs
SANITIZE_TESTS = irq-fixture noise-usage run-limits check-live no-false-good doctor-usage \
	monitor-usage monitor-state monitor-prometheus exporter-prometheus exporter-hostile \
	attach-usage
SANITIZE_ENV = LATSCOPE_SANITIZED=1 \
	ASAN_OPTIONS=detect_leaks=1 \
	UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1

.PHONY: run test deps build clean sanitize fuzz

# the main job: the whole diagnosis of this machine in 30 s, one page to read;
# done when the page is written, whatever the verdict (doctor exits 2 for
# "not ready", 1 when a part could not run: both are on the page)
run: deps build
	@touch $(BUILD)/run-started; \
	./$(BUILD)/cli/latscope doctor --duration 30s --report latscope-report.html; \
	status=$$?; \
	if [ latscope-report.html -nt $(BUILD)/run-started ]; then \
		echo "The report is $(CURDIR)/latscope-report.html: open it in a browser."; \
	else \
		exit $$status; \
	fi

# the system tests as on a machine just booted (tracefs unmounted, no earlier
# latscope state), then those that trace with tracefs mounted: each in a
# private mount namespace (scripts/system-tests.sh); then the lab's tests,
# each in a guest booted from Debian's RT or generic kernel (tests/lab/lab).
# Each stage says how long it took.
test: deps build
	./scripts/stage unit meson test -C $(BUILD) --no-suite system --no-suite lab \
		--print-errorlogs
	./scripts/stage system ./scripts/system-tests.sh $(BUILD)
	./scripts/stage lab meson test -C $(BUILD) --no-rebuild --suite lab --print-errorlogs
	./scripts/stage sanitize $(MAKE) --no-print-directory sanitize
	./scripts/stage fuzz ./scripts/fuzz.sh 20
	./scripts/stage package ./scripts/check-package.sh

# ASan and UBSan: any report fails the test that triggered it
sanitize:
	[ -f $(SANITIZE_BUILD)/build.ninja ] || meson setup $(SANITIZE_BUILD) -Dwerror=true \
		-Db_sanitize=address,undefined -Db_lundef=false
	meson compile -C $(SANITIZE_BUILD)
	$(SANITIZE_ENV) meson test -C $(SANITIZE_BUILD) --suite unit --print-errorlogs
	$(SANITIZE_ENV) meson test -C $(SANITIZE_BUILD) --print-errorlogs $(SANITIZE_TESTS)

fuzz: deps
	./scripts/fuzz.sh $(FUZZ_SECONDS)

deps:
	./scripts/install-deps.sh

build:
	[ -f $(BUILD)/build.ninja ] || meson setup $(BUILD) -Dwerror=true
	meson compile -C $(BUILD)

clean:
	rm -rf $(BUILD) $(SANITIZE_BUILD) build-fuzz

# The two commands of the README: `make loadtest` and `make test`. Both install what they need.
.PHONY: loadtest test plan report gate typecheck checks unit unit-first unit-beside format servers

# Dependencies: npm ci without install scripts, then esbuild's, the only package with one. SQLite
# comes prebuilt in libsql's platform package from npm's registry (decision 042): nothing compiles.
DEPS := node_modules/.package-lock.json
PLATEAU := node bin/plateau.js

$(DEPS): package.json package-lock.json
	npm ci --no-audit --no-fund --ignore-scripts
	npm rebuild esbuild

# make loadtest                          the embedded demo target (started and stopped here)
# make loadtest TARGET=http://host:port/path [CONFIG=path/to/plateau.config.ts]
# make loadtest CONFIG=path/to/plateau.config.ts    the config's own target
WHERE = $(if $(TARGET),--target $(TARGET),$(if $(CONFIG),,--demo)) $(if $(CONFIG),--config $(CONFIG))
loadtest: $(DEPS)
	$(PLATEAU) run $(WHERE) $(ARGS)

plan: $(DEPS)
	$(PLATEAU) plan $(WHERE) $(ARGS)

report: $(DEPS)
	$(PLATEAU) report runs/latest

# make gate [RUN=runs/latest] [BASELINE=baseline.json] [TOLERANCE=5%]: fails on a regression (plateau's exit 1),
# a run it cannot judge (3) or a usage error (2), all as make's exit 2; CI that tells them apart runs npx plateau gate
gate: $(DEPS)
	$(PLATEAU) gate $(or $(RUN),runs/latest) --baseline $(or $(BASELINE),baseline.json) --tolerance $(or $(TOLERANCE),5%)

typecheck: $(DEPS)
	npx tsc --noEmit -p .

# The types, the rooms' import rules (.dependency-cruiser.cjs) and the code's format (make format
# fixes it); make test runs them as the CPU hog's first work, beside the integration set.
CODE := "**/*.{ts,mts,mjs,js,cjs}"
checks: $(DEPS)
	npx tsc --noEmit -p .
	npx depcruise --config .dependency-cruiser.cjs --output-type err-long analysis reports demo harness
	npx prettier --check --log-level warn $(CODE) || { echo "the files above are not formatted: run make format"; exit 1; }

format: $(DEPS)
	npx prettier --write --log-level warn $(CODE)

# make test: first, at once, the servers the tests need (one apt-get for whatever is missing:
# scripts/ensure-servers.sh) and the unit project; then the integration project
# (real load, two files at a time) beside a CPU hog that takes a core's worth, so every run proves
# the suite holds on a busy machine. The hog first does the checks (types, the rooms' import rules,
# the format) and the unit-beside project (every pure file: no thread, and no process but a git
# rev-parse it waits for, which test/helpers/pure-guard.ts enforces), one after the other (-j1; -k: a check that fails still lets the tests
# run), in a cgroup at one process's weight, then loops (scripts/with-cpu-hog.sh --first;
# PLATEAU_NO_CPU_HOG=1 runs it all alone). The unit project's files there (two threads,
# esbuild, child processes) failed native-engine tests in 2 of 4 runs. Projects: vitest.config.ts;
# decision 027.
test: $(DEPS)
	$(MAKE) --no-print-directory -j2 servers unit-first
	sh scripts/with-cpu-hog.sh --first '$(MAKE) --no-print-directory -k -j1 checks unit-beside' npx vitest run --project integration

servers:
	sh scripts/ensure-servers.sh

# Every pure test: the unit and unit-beside projects (vitest.config.ts).
unit: $(DEPS)
	npx vitest run --project unit --project unit-beside

# The unit project (the pure files that start a process, a thread or a build): make test's first phase.
unit-first: $(DEPS)
	npx vitest run --project unit

unit-beside: $(DEPS)
	npx vitest run --project unit-beside

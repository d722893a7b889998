# The two commands of the README: `make loadtest` and `make test`. Both install what they need.
.PHONY: loadtest test plan report typecheck

DEPS := node_modules/.package-lock.json
PLATEAU := node bin/plateau.js

$(DEPS): package.json package-lock.json
	npm ci --no-audit --no-fund

# make loadtest                          the embedded demo target (started and stopped here)
# make loadtest TARGET=http://host:port/path [CONFIG=path/to/plateau.config.ts]
loadtest: $(DEPS)
	$(PLATEAU) run $(if $(TARGET),--target $(TARGET),--demo) $(if $(CONFIG),--config $(CONFIG)) $(ARGS)

plan: $(DEPS)
	$(PLATEAU) plan $(if $(TARGET),--target $(TARGET),--demo) $(if $(CONFIG),--config $(CONFIG)) $(ARGS)

report: $(DEPS)
	$(PLATEAU) report runs/latest

typecheck: $(DEPS)
	npx tsc --noEmit -p .

test: $(DEPS)
	npx tsc --noEmit -p .
	npx vitest run

# The two commands the README promises. Each installs what it needs on a fresh clone.
.PHONY: demo test deps check bench

deps:
	@bash scripts/ensure-deps.sh

demo: deps
	@node bin/capstan.js demo

check: deps
	npx tsc --noEmit
	npx eslint .

test: check
	npm test

# The two commands the README promises. Each installs what it needs on a fresh clone.
.PHONY: demo test deps browser scanner ldap dex samlidp simplesamlphp registry prometheus check bench images

deps:
	@bash scripts/ensure-deps.sh

# The browser tests drive Debian's chromium; installed once when missing.
browser:
	@bash scripts/ensure-browser.sh

demo: deps
	@node bin/capstan.js demo

# The two type checks and the lint at once (each is mostly one core's work; on two cores this
# takes about as long as the lint alone); each one's failure still fails the target.
check: deps
	@npx tsc --noEmit & agent=$$!; npx tsc --noEmit -p ui/web & ui=$$!; npx eslint . & lint=$$!; \
	status=0; wait $$agent || { echo 'type check (agent) failed'; status=1; }; wait $$ui || { echo 'type check (dashboard) failed'; status=1; }; \
	wait $$lint || { echo 'lint failed'; status=1; }; exit $$status

# trivy and its offline vulnerability DB (docs/trivy-offline.md), which only the tests use:
# about 6 min the first time on two cores, cached outside the repository after that.
scanner:
	@bash scripts/build-trivy.sh db >/dev/null

# The LDAP sign-in tests start Debian's slapd on loopback (tests/support/slapd.ts); installed once when missing.
ldap:
	@bash scripts/ensure-slapd.sh

# The OIDC sign-in tests run dex (tests/support/dex.ts), built once from the Go module proxy
# (about a minute on two cores), cached outside the repository after that.
dex:
	@bash scripts/build-dex.sh >/dev/null

# The SAML sign-in tests run crewjam/saml's samlidp (tests/support/samlidp.ts), built once from
# the Go module proxy (scripts/samlidp), cached outside the repository after that.
samlidp:
	@bash scripts/build-samlidp.sh >/dev/null

# The SAML single-logout tests run Debian's SimpleSAMLphp on PHP's built-in server
# (tests/support/simplesamlphp.ts); installed once when missing.
simplesamlphp:
	@bash scripts/ensure-simplesamlphp.sh

# The saved-Helm-config tests pull charts from Debian's docker-registry on loopback
# (tests/support/registry.ts); installed once when missing.
registry:
	@bash scripts/ensure-registry.sh

# The observability tests query Debian's prometheus, scraping the local control plane
# (tests/support/prometheus.ts); installed once when missing.
prometheus:
	@bash scripts/ensure-prometheus.sh
	@bash scripts/build-promtool.sh >/dev/null

# tests/run.ts prepares what the files need (the control plane, chromium, slapd, SimpleSAMLphp,
# docker-registry, prometheus, dex, samlidp, trivy: the targets above, each once and cached) while the unit tests run.
test: check
	npm test

# The capstan-agent, capstan-ui, capstan-expert (helm) and capstan-terminal (bash, kubectl,
# helm) images, built without a Docker daemon (docs/images.md): OCI layouts and CycloneDX SBOMs
# in build/images/. About 24 s on a warm cache.
images: deps
	@node --import tsx scripts/build-images.ts

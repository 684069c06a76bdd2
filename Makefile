# winlimit: build, test and run the Redis module.
PY := .venv/bin/python
PYTEST := $(PY) -m pytest -q tests/

# The test matrix: every server users run, fetched into .cache/ by scripts/fetch-servers.sh.
SERVERS := redis-6.0 redis-6.2 redis-7.0 redis-8.0 redis-8.2 valkey-8.0 valkey-8.1 valkey-9.1
# The library's editions on them: Functions where the server has them, the scripts on 6.x.
FUNCTION_SERVERS := redis-7.0 redis-8.0 redis-8.2 valkey-8.0 valkey-8.1 valkey-9.1
SCRIPT_SERVERS := redis-6.0 redis-6.2
LIBRARY_ITESTS := $(addprefix itest-functions-,$(FUNCTION_SERVERS)) $(addprefix itest-scripts-,$(SCRIPT_SERVERS))

# The released module (make dist): linked against glibc 2.17, no debug info.
RELEASE_SO := $(CURDIR)/target/x86_64-unknown-linux-gnu/dist/libwinlimit.so

.PHONY: all build lua deps servers release-so test unit itest itest-all itest-clients $(addprefix itest-,$(SERVERS)) itest-valkey itest-library $(LIBRARY_ITESTS) itest-client itest-limits lua-clients itest-node itest-go bench-go bench-java bench-java-time itest-rls bench-rls node-deps itest-java java-deps dist itest-dist lint docs docs-site examples-test examples-deps run bench bench-many-keys bench-breaker bench-instr bench-node-breaker fuzz clean ci-cold flake-hunt bench-gateway

all: build

build: lua
	cargo build --release

# The Redis 6.x script (no Functions there), built from the library: target/lua/winlimit-script.lua.
lua:
	python3 scripts/build-lua.py

deps:
	scripts/install-deps.sh

servers: deps
	scripts/fetch-servers.sh all

# The integration suite runs on the released .so (what operators load), on every server.
test: export WINLIMIT_MODULE := $(RELEASE_SO)
test: deps servers unit dist itest-all itest-dist itest-clients examples-test

# The clients' suites side by side (each mostly waits on its servers, HTTP round trips and,
# for limits' own tests, their sleeps).
# Six at a time, the longest first; each backend's Python and Node run is a suite of its own.
CLIENT_ITESTS := itest-java itest-go itest-client-module itest-node-module itest-limits itest-rls \
	itest-client-functions itest-node-functions itest-client-scripts-6.2 itest-node-scripts-6.2 \
	itest-client-scripts-6.0 itest-node-scripts-6.0
itest-clients:
	$(MAKE) --no-print-directory -j6 --output-sync=target $(CLIENT_ITESTS)

unit:
	cargo test --release

# The integration suite on Debian's Redis 7.0 only.
itest: itest-redis-7.0

# The whole suite on every server of the matrix against the module, and against the library
# (the Functions library where the server has Functions, the scripts on 6.x), four suites at a
# time: a suite mostly waits on its servers' replies (about a quarter of a core each), so four
# share this 2-core machine well. ITEST_JOBS=1 runs them one by one.
ITEST_JOBS ?= 4
itest-all:
	$(MAKE) --no-print-directory -j$(ITEST_JOBS) --output-sync=target $(addprefix itest-,$(SERVERS)) $(LIBRARY_ITESTS)

# The integration suite on one server of the matrix: .cache/NAME/bin/server, and bin/cli to
# create the test clusters (scripts/fetch-servers.sh says which cli each server gets).
SERVER_ENV = WINLIMIT_SERVER_BIN=$(CURDIR)/.cache/$*/bin/server WINLIMIT_CLI_BIN=$(CURDIR)/.cache/$*/bin/cli
$(addprefix itest-,$(SERVERS)): itest-%:
	scripts/fetch-servers.sh $*
	$(SERVER_ENV) $(PYTEST)

itest-valkey: itest-valkey-8.0

# Debian 11's Redis 6.0 runs on glibc 2.31: it loads the released .so (glibc 2.17), not a
# build for this machine's newer glibc. `make test` sets WINLIMIT_MODULE to it for every server.
release-so: deps
	scripts/build-release-so.sh >/dev/null
itest-redis-6.0: export WINLIMIT_MODULE ?= $(RELEASE_SO)
itest-redis-6.0: | release-so

# The same suite against the library instead of the module (tests/kit/editions.py): the
# Functions library on every server of the matrix that has Functions, the scripts on Redis
# 6.0 and 6.2. Tests of what only the module has are skipped there, each with its reason.

itest-library: $(LIBRARY_ITESTS)

$(addprefix itest-functions-,$(FUNCTION_SERVERS)): itest-functions-%:
	scripts/fetch-servers.sh $*
	WINLIMIT_EDITION=functions $(SERVER_ENV) $(PYTEST)

$(addprefix itest-scripts-,$(SCRIPT_SERVERS)): itest-scripts-%:
	scripts/fetch-servers.sh $*
	WINLIMIT_EDITION=scripts $(SERVER_ENV) $(PYTEST)

# The Python client (clients/python): every method sync and asyncio, on a server and on a
# cluster, the header fields, the wheel, mypy --strict, and the ASGI middleware served by a
# real uvicorn server to a real httpx client. Then the whole suite again on each backend
# without the module (WINLIMIT_CLIENT_BACKEND): the Functions library on Debian's Redis 7.0,
# the scripts on Redis 6.2 and 6.0 (test_package and test_backends, which choose their own
# servers, once per server). Each backend's run is a target of its own, so that itest-clients
# runs them side by side with the other suites.
CLIENT_SKIP := --ignore=clients/python/tests/test_package.py
CLIENT_RUNS := itest-client-module itest-client-functions itest-client-scripts-6.2 itest-client-scripts-6.0
NODE_RUNS := itest-node-module itest-node-functions itest-node-scripts-6.2 itest-node-scripts-6.0
.PHONY: $(CLIENT_RUNS) $(NODE_RUNS) node-build
# Redis 6.0 (glibc 2.31) loads the released .so only: both client suites use it.
itest-client itest-node $(CLIENT_RUNS) $(NODE_RUNS): export WINLIMIT_MODULE ?= $(RELEASE_SO)
itest-client itest-node $(CLIENT_RUNS) $(NODE_RUNS): | release-so
itest-client: $(CLIENT_RUNS)
$(CLIENT_RUNS): lua-clients
itest-client-module:
	$(PY) -m pytest -q clients/python/tests
itest-client-functions:
	WINLIMIT_CLIENT_BACKEND=functions $(PY) -m pytest -q $(CLIENT_SKIP) \
		--ignore=clients/python/tests/test_backends.py clients/python/tests
$(filter itest-client-scripts-%,$(CLIENT_RUNS)): itest-client-scripts-%:
	scripts/fetch-servers.sh redis-$*
	WINLIMIT_SERVER_BIN=$(CURDIR)/.cache/redis-$*/bin/server WINLIMIT_CLI_BIN=$(CURDIR)/.cache/redis-$*/bin/cli \
		WINLIMIT_CLIENT_BACKEND=scripts $(PY) -m pytest -q $(CLIENT_SKIP) clients/python/tests

# limits' own storage and strategy tests (its pinned sdist, fetched into .cache/) against
# winlimit.limits: on the module (Redis 7.0), the library (Redis 7.0) and the scripts (Redis 6.2).
itest-limits: export WINLIMIT_MODULE ?= $(RELEASE_SO)
itest-limits: | release-so
itest-limits: lua-clients
	scripts/fetch-servers.sh redis-7.0 redis-6.2
	for run in module:redis-7.0 functions:redis-7.0 scripts:redis-6.2; do s=$${run#*:}; \
		WINLIMIT_SERVER_BIN=$(CURDIR)/.cache/$$s/bin/server WINLIMIT_CLIENT_BACKEND=$${run%%:*} \
		$(PY) scripts/limits-tests.py || exit 1; \
	done

# The Go client (clients/go): go vet, staticcheck (pinned) and go test -race on each of its
# modules (the core, winprom, grpclimit; migration, the redis_rate page's before): the
# module (Redis 7.0), the Functions library (7.0),
# the scripts (6.2, 6.0), a 3-primary cluster, the shared cases, net/http, gRPC and /metrics.
# Then the core's tests again on the oldest Go its go.mod allows (GO_OLDEST: go-redis v9.23's
# own directive is go 1.26.0; the Go module proxy serves that toolchain), and redis_rate's own
# test file on redisrate (scripts/redis-rate-tests.sh). The tests start their own servers from
# .cache on free ports (WINLIMIT_CACHE) and load WINLIMIT_MODULE. -p 1: one package's servers
# at a time on 2 cores.
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2
GO_MODULES := . winprom grpclimit migration
GO_OLDEST := go1.26.0
itest-go bench-go: export WINLIMIT_MODULE ?= $(RELEASE_SO)
itest-go bench-go: export WINLIMIT_CACHE := $(CURDIR)/.cache
itest-go bench-go: | release-so
itest-go: lua-clients
	scripts/fetch-servers.sh redis-6.0 redis-6.2 redis-7.0
	for m in $(GO_MODULES); do (cd clients/go/$$m && go vet ./... && go run $(STATICCHECK) ./... && \
		go test -race -shuffle=on -count=1 -p 1 ./...) || exit 1; done
	cd clients/go && GOTOOLCHAIN=$(GO_OLDEST) go vet ./... && GOTOOLCHAIN=$(GO_OLDEST) go test -count=1 -p 1 ./...
	scripts/redis-rate-tests.sh

# winlimit-ratelimit (services/ratelimit), the drop-in for envoyproxy/ratelimit: go vet,
# staticcheck (pinned) and its suite, which builds the service and asks it over gRPC as Envoy
# does, on Redis 7.0 with the module, 7.0 without it (Functions), 6.2 (scripts) and a
# 3-primary cluster; servers from .cache on free ports, stopped by PID.
itest-rls: export WINLIMIT_MODULE ?= $(RELEASE_SO)
itest-rls: export WINLIMIT_CACHE := $(CURDIR)/.cache
itest-rls: | release-so
itest-rls:
	scripts/fetch-servers.sh redis-6.2 redis-7.0
	cd services/ratelimit && go vet ./... && go run $(STATICCHECK) ./... && go test -count=1 -p 1 ./...

# winlimit-ratelimit beside envoyproxy/ratelimit (a benchmark, not a gate): the same YAML, the
# same Redis 7.0 (with the module, and without it for Functions), the same gRPC load from
# bench/rls at fixed concurrency in alternating rounds; upstream built from the Go module proxy
# at a pinned version under .cache/ (UPSTREAM=0: winlimit alone). Results: bench/results/rls.md.
bench-rls: export WINLIMIT_MODULE ?= $(RELEASE_SO)
bench-rls: | release-so
bench-rls:
	scripts/fetch-servers.sh redis-7.0
	cd bench/rls && go vet ./... && go run $(STATICCHECK) ./...
	bench/rls/run.sh

# The Go client's overhead over a bare go-redis call (benchmarks, not a gate): the limiter on a
# default go-redis client and on a tuned one, beside rdb.Do, in interleaved passes
# (bench/results/go-overhead.md; benchstat pinned).
BENCHSTAT := golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da
bench-go: lua-clients
	BENCHSTAT=$(BENCHSTAT) scripts/bench-go.sh

# The Java limiter's overhead over a bare Lettuce dispatch of the same WINLIMIT.FIXED line, sync
# and async, with JMH (pinned, from Maven Central) and -prof gc; not part of make test. Results:
# bench/results/java-overhead.json (raw) and .md.
bench-java: export WINLIMIT_MODULE ?= $(RELEASE_SO)
bench-java: java-deps | release-so
	scripts/fetch-servers.sh redis-7.0
	cd clients/java && mvn -B -q install -DskipTests -pl winlimit-core -am
	bench/java/run.sh

# The time target of bench-java (the limiter within 5% of the bare call): the same four calls
# in turns in one JVM, the limiter's time over the bare call's per round (~2 min on an idle machine).
bench-java-time: export WINLIMIT_MODULE ?= $(RELEASE_SO)
bench-java-time: java-deps | release-so
	scripts/fetch-servers.sh redis-7.0
	cd clients/java && mvn -B -q install -DskipTests -pl winlimit-core -am
	bench/java/run.sh interleaved

# Spring Cloud Gateway's own RedisRateLimiter beside winlimit's limiter (module, Functions) and
# no limiter, as routes of one gateway (bench/gateway, Boot 4.0.7 with Spring Cloud 2025.1.4) on
# one backend, loaded by wrk at 32 connections in alternating rounds (a benchmark, not part of make
# test; ~6 min).
# Results: bench/results/gateway.md and .json.
bench-gateway: export WINLIMIT_MODULE ?= $(RELEASE_SO)
bench-gateway: java-deps | release-so
	scripts/install-deps.sh wrk
	scripts/fetch-servers.sh redis-7.0
	cd clients/java && mvn -B -q install -DskipTests -pl winlimit-spring-cloud-gateway -am
	for m in gateway internal/procs; do (cd bench/$$m && go vet ./... && go run $(STATICCHECK) ./...) || exit 1; done
	bench/gateway/run.sh

# The library built into both clients (scripts/embed-lua.py): the Python package's data and
# the Node package's src/lua.ts, from lua/winlimit.lua.
lua-clients:
	python3 scripts/embed-lua.py

# The lint gate (CI runs it before make test): rustfmt, clippy with every warning an error
# and every `unsafe` block needing its `// SAFETY:` comment, mypy --strict on the Python
# client, ruff (ruff.toml) over the Python client, the tests, scripts/ and bench/, luacheck on
# the Lua library (.luacheckrc) and its locals' bounds (scripts/lua-locals.py), and on the
# Node client tsc --noEmit and eslint (typescript-eslint; its config is
# clients/node/eslint.config.mjs), the dashboard's and the rules' queries against
# clients/spec/dashboard_queries.json and the rules through promtool (Debian's prometheus),
# then the documentation site (make docs-site: --strict).
# rustup adds rustfmt and clippy when missing.
lint: deps lua-clients node-deps
	@command -v rustup >/dev/null 2>&1 && rustup component add rustfmt clippy >/dev/null 2>&1 || true
	cargo fmt --check
	cargo clippy --all-targets -- -D warnings -D clippy::undocumented_unsafe_blocks
	$(PY) -m mypy --strict clients/python/winlimit
	$(PY) -m ruff check clients/python tests scripts bench examples
	luacheck lua/winlimit.lua
	python3 scripts/lua-locals.py
	cd clients/node && npm run --silent lint
	$(PY) scripts/dashboard_queries.py --check
	promtool check rules docs/prometheus/winlimit-rules.yml
	$(MAKE) --no-print-directory docs-site

# dist/: the release tarball, the Debian package, the client's wheel and sdist, SHA256SUMS.
dist: deps
	scripts/make-dist.sh

# What dist/ holds, checked as an operator uses it: sha256sum -c, the tarball, the .so's
# glibc bound, the .deb installed for real into Debian's Redis and removed, the wheel and the
# sdist in fresh virtualenvs. Root, for apt-get.
itest-dist:
	env -u WINLIMIT_SERVER_BIN -u WINLIMIT_CLI_BIN $(PY) -m pytest -q packaging/tests

# The Node client (clients/node): every method over node-redis and ioredis, plain and on a
# cluster, the shared header cases, Express and Fastify apps on real HTTP servers, and the
# package as npm packs it; on Debian's Redis 7.0 (the module is the same on every server).
# Then the whole suite again on each backend without the module (WINLIMIT_CLIENT_BACKEND): the
# Functions library on Redis 7.0, the scripts on Redis 6.2 and 6.0 (the package test, and
# the backends test, which chooses its own servers, once per server).
NODE_SERVER := redis-7.0
NODE_TESTS := $(patsubst clients/node/%,%,$(wildcard clients/node/test/*.test.mjs))
NODE_BACKEND_TESTS := $(filter-out test/package.test.mjs,$(NODE_TESTS))
node_on = cd clients/node && WINLIMIT_SERVER_BIN=$(CURDIR)/.cache/$(1)/bin/server WINLIMIT_CLI_BIN=$(CURDIR)/.cache/$(1)/bin/cli \
	WINLIMIT_CLIENT_BACKEND=$(2) node --test $(3)
itest-node: $(NODE_RUNS)
$(NODE_RUNS): node-build
node-build: node-deps
	scripts/fetch-servers.sh $(NODE_SERVER) redis-6.2 redis-6.0
	cd clients/node && npm run --silent build
itest-node-module:
	$(call node_on,$(NODE_SERVER),module,$(NODE_TESTS))
itest-node-functions:
	$(call node_on,$(NODE_SERVER),functions,$(filter-out test/backends.test.mjs,$(NODE_BACKEND_TESTS)))
$(filter itest-node-scripts-%,$(NODE_RUNS)): itest-node-scripts-%:
	$(call node_on,redis-$*,scripts,$(NODE_BACKEND_TESTS))

# Node 20 or later (current node-redis and ioredis need it), and the pinned development
# dependencies from clients/node/package-lock.json: npm ci, again only when the lock changed.
node-deps:
	@command -v node >/dev/null 2>&1 || { echo "make: the Node client's tests need Node.js 20 or later; node was not found" >&2; exit 1; }
	@node -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 20 ? 0 : 1)' || \
		{ echo "make: the Node client's tests need Node.js 20 or later; this is Node $$(node --version)" >&2; exit 1; }
	@cd clients/node && want=$$(sha256sum package-lock.json | cut -d' ' -f1) && \
		if [ "$$(cat node_modules/.lock.sha256 2>/dev/null)" != "$$want" ]; then \
			echo "npm ci (clients/node)" && npm ci --no-audit --no-fund --loglevel=error && echo "$$want" > node_modules/.lock.sha256; \
		fi

# The example applications (examples/): each started with its README's one command against a
# real Redis 7.0 with the module and against one without it (the client loads the Functions
# library), driven through the seeds' 3 SMS per hour per user by a real HTTP client (~45 s).
examples-test: export WINLIMIT_MODULE ?= $(RELEASE_SO)
examples-test: examples-deps lua-clients | release-so
	scripts/fetch-servers.sh redis-7.0
	cd clients/node && npm run --silent build
	WINLIMIT_SERVER_BIN=$(CURDIR)/.cache/redis-7.0/bin/server $(PY) -m pytest -q examples/tests

# The Node examples' pinned dependencies (examples/package-lock.json; winlimit links to
# clients/node): npm ci, again only when the lock changed. The Spring examples: the winlimit
# artifacts of clients/java installed into ~/.m2 (online, so Maven fetches every pinned plugin
# and artifact), then each example's jar built once, which test_apps.py starts twice.
SPRING_EXAMPLES := spring-mvc spring-webflux spring-cloud-gateway
examples-deps: deps node-deps java-deps
	@cd examples && want=$$(sha256sum package-lock.json | cut -d' ' -f1) && \
		if [ "$$(cat node_modules/.lock.sha256 2>/dev/null)" != "$$want" ]; then \
			echo "npm ci (examples)" && npm ci --no-audit --no-fund --loglevel=error && echo "$$want" > node_modules/.lock.sha256; \
		fi
	cd clients/java && mvn -B -q install -DskipTests -pl winlimit-core,winlimit-spring-boot-starter,winlimit-spring-cloud-gateway
	for e in $(SPRING_EXAMPLES); do (cd examples/$$e && mvn -B -q package) || exit 1; done

# The Node limiter's added latency while Redis hangs or is gone, the circuit breaker open
# against off (clients/node/bench/breaker.mjs): bench/results/node-breaker.md (~1 min).
bench-node-breaker: node-deps | release-so
	scripts/fetch-servers.sh $(NODE_SERVER)
	cd clients/node && npm run --silent build && WINLIMIT_MODULE=$${WINLIMIT_MODULE:-$(RELEASE_SO)} \
		WINLIMIT_SERVER_BIN=$(CURDIR)/.cache/$(NODE_SERVER)/bin/server node bench/breaker.mjs

# The Java client (clients/java, Maven): the shared cases of clients/spec and every method over
# Lettuce, Jedis and Spring Data Redis, on servers the tests start from .cache/: Redis 7.0 with
# the module and without it (Functions), Redis 6.2 and 6.0 (the scripts), a 3-primary cluster;
# the Spring Boot starter in real MVC and WebFlux apps, on Boot 3.5 and again on Boot 4.0
# (winlimit-spring-boot4-tests), a real Spring Cloud Gateway on Boot 3.5 + Spring Cloud 2025.0
# and on Boot 4.0 + 2025.1 (winlimit-spring-cloud-gateway-boot4-tests); then the jars
# installed into ~/.m2 and clients/java/consumer built from there alone and run once.
# Online, never -o: Maven fetches only the pinned versions, and only once into ~/.m2. An offline
# step fails on a new machine for any plugin or provider that no earlier step happened to
# resolve (Surefire's JUnit launcher of one module, the consumer's dependency plugin).
itest-java: export WINLIMIT_MODULE ?= $(RELEASE_SO)
itest-java: java-deps | release-so
	scripts/fetch-servers.sh redis-7.0 redis-6.2 redis-6.0
	cd clients/java && mvn -B -q install
	CONSUMER_INSTALLED=1 clients/java/consumer/check.sh

# Java 17 and Maven.
java-deps:
	@command -v mvn >/dev/null 2>&1 || { echo "make: the Java client needs Maven (apt-get install maven) and Java 17" >&2; exit 1; }
	@java -version 2>&1 | grep -Eq 'version "(1[7-9]|[2-9][0-9])' || { echo "make: the Java client needs Java 17 or later" >&2; exit 1; }

# docs/algorithms.png, drawn from real calls.
docs: deps build
	PYTHONPATH=tests $(PY) docs/make_algorithms_png.py

# The documentation site (mkdocs.yml, docs/) into site/: --strict, so a broken link, a missing
# included file or a page left out of the navigation fails. The command reference is rendered
# from clients/spec/command_table.json on every build (scripts/mkdocs_hooks.py). First the
# snippet check: a code block of the site or a README that nothing runs fails it
# (scripts/check_snippets.py; the sessions are replayed by tests/test_docs_sessions.py).
docs-site: deps
	$(PY) scripts/check_snippets.py
	NO_MKDOCS_2_WARNING=1 $(PY) -m mkdocs build --strict

run: deps build
	redis-server redis.conf.example

# make bench CELL=/path/to/libredis_cell.so adds redis-cell, on a server of its own;
# BENCH_ARGS passes more options (--quick, --rounds N, --only A,B, ...).
bench: deps build
	PYTHONPATH=tests:bench $(PY) -m winbench $(if $(CELL),--cell $(CELL)) $(BENCH_ARGS)
	$(MAKE) --no-print-directory bench-many-keys

# The many-keys profile: 100,000 random keys, 64 clients, pipeline 16, requests per second of
# the server's own CPU time: bench/results/many-keys.md. MANY_KEYS_ARGS passes options.
bench-many-keys: deps build
	PYTHONPATH=tests:bench $(PY) -m winbench.manykeys $(MANY_KEYS_ARGS)

# The Python client's latency per decision with Redis hung (SIGSTOP) or gone, with the
# circuit breaker open and without it: bench/results/breaker.md (~1 min).
bench-breaker: deps lua-clients
	PYTHONPATH=tests:bench $(PY) -m winbench.breaker $(BENCH_ARGS)

# Instructions per call (callgrind) for every contender, net of PING, with the cost targets:
# bench/results/instructions.md. valgrind comes from Debian. CELL= adds redis-cell.
bench-instr: deps build
	scripts/install-deps.sh valgrind
	PYTHONPATH=tests:bench $(PY) -m winbench.instr $(if $(CELL),--cell $(CELL)) $(BENCH_ARGS)

# CI as a new machine runs it (scripts/ci-cold.sh): a fresh clone of HEAD with every package
# cache empty. Before any submission that changes a dependency, a build file or .ci/run.
ci-cold:
	scripts/ci-cold.sh

# A flake hunt: itest-all and itest-clients, 3 times each, with both cores kept busy by two
# more processes (ended by PID), on a fresh clone of HEAD; a summary of every run's time and
# failures (ROUNDS, BUSY). Not part of make test.
flake-hunt:
	scripts/flake-hunt.sh

fuzz: deps build
	PROPTEST_CASES=5000000 cargo test --release fuzz_
	WINLIMIT_FUZZ_CALLS=200000 $(PY) -m pytest -q tests/test_fuzz.py

clean:
	cargo clean
	rm -rf tests/.tmp bench/.tmp .pytest_cache .mypy_cache .cache dist clients/node/node_modules clients/node/dist clients/node/.tmp site examples/node_modules

# winlimit: build, test and run the Redis module.
PY := .venv/bin/python

.PHONY: all build deps test unit itest itest-valkey run bench fuzz clean

all: build

build:
	cargo build --release

deps:
	scripts/install-deps.sh

test: deps build unit itest itest-valkey

unit:
	cargo test --release

itest:
	$(PY) -m pytest -q tests/

# The same integration tests on Valkey (Debian backports, unpacked under .cache/).
VALKEY := $(CURDIR)/.cache/valkey/usr/bin
itest-valkey:
	scripts/fetch-valkey.sh
	WINLIMIT_SERVER_BIN=$(VALKEY)/valkey-server WINLIMIT_CLI_BIN=$(VALKEY)/valkey-cli $(PY) -m pytest -q tests/

run: deps build
	redis-server redis.conf.example

bench: deps build
	$(PY) bench/bench.py

fuzz: deps build
	PROPTEST_CASES=5000000 cargo test --release fuzz_
	WINLIMIT_FUZZ_CALLS=200000 $(PY) -m pytest -q tests/test_fuzz.py

clean:
	cargo clean
	rm -rf tests/.tmp bench/.tmp .pytest_cache .cache

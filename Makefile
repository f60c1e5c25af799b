# Thin wrapper over Meson + Ninja so the two README commands stay short.
PREFIX ?= /usr/local
BUILD ?= build
MESON ?= meson

all: $(BUILD)/build.ninja
	ninja -C $(BUILD)

$(BUILD)/build.ninja:
	$(MESON) setup $(BUILD) --prefix=$(PREFIX) -Dwerror=true --buildtype=debugoptimized

check: all
	tests/run-all.sh $(BUILD)

all-asan:
	[ -f build-asan/build.ninja ] || $(MESON) setup build-asan -Dwerror=true -Db_sanitize=address,undefined -Db_lundef=false --buildtype=debug
	ninja -C build-asan

check-asan: all-asan
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 tests/run-all.sh build-asan

install: all
	$(MESON) configure $(BUILD) -Dprefix=$(PREFIX)
	ninja -C $(BUILD)
	DESTDIR=$(DESTDIR) $(MESON) install -C $(BUILD) --no-rebuild

clean:
	rm -rf $(BUILD) build-asan

.PHONY: all check sanitize all-asan check-asan install clean

# shellcheck shell=bash
# The flags that link a C driver (scripts/bench-*.c) against
# build/liblodwash_core.a: every system library lodwash's libraries use, as
# CMakeLists.txt finds them (the linker keeps only those a driver needs).
# tests/test_bench_drivers.sh builds every driver with them.
lw_core_link_flags() {
  pkg-config --cflags --libs hiredis libcurl libarchive serd-0 uchardet yaml-0.1 jansson \
    openssl raptor2 libxml-2.0 libmicrohttpd zlib lmdb libdeflate
  echo -lpthread -lm
}

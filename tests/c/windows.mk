# tests/c/windows.mk (included by tests/c/Makefile): ghmix's Windows build,
# checked on Linux with the MinGW-w64 cross-compiler (Debian's
# gcc-mingw-w64-x86-64) and Wine (Debian's wine64).  R for Windows itself
# cannot run here, so the package is not installed or linked against
# R.dll: its sources are compiled, and the core and the CPU drivers are
# tested, on the Windows C runtime.
#
#   make -C tests/c windows-cross  the package's C sources compiled as R for
#                                  Windows compiles them: the objects that
#                                  src/Makevars.win lists, R's flags for
#                                  Windows and headers, with -Wextra -Werror
#                                  (LLP64: long is 32 bits; no POSIX
#                                  signals, dlopen or fork there); then
#                                  linked into a DLL whose missing symbols
#                                  must all be R's API, BLAS or LAPACK (the
#                                  names checked against this machine's
#                                  libR.so and R's BLAS and LAPACK); and
#                                  tools/portable-types.sh (no `long`)
#   make -C tests/c windows-test   the C tests (TEST_RUNS) built for Windows
#                                  and run under Wine; the last line is
#                                  "N passed, M failed"
#   make -C tests/c windows-clean  removes win/ and the Wine prefix (make
#                                  clean removes win/ only)
#
# The tests are linked statically, as Rtools links a package: OpenMP from
# MinGW's libgomp, and, as there is no BLAS for Windows here, the two
# routines src/cpu calls from win_blas.c (plain loops, never compared bit
# for bit).  The math functions the core calls come from MinGW-w64's
# runtime (libmingwex: exp, log, pow, log1p, expm1, lgamma ...), code that
# runs the same under Wine as on Windows, or from the C runtime DLL (acos,
# cosh, sinh, hypot, and the exact frexp and nextafter), which under Wine
# is Wine's own.
#
# Options:
#   WINDOWS_CRT  ucrt (default: R 4.2 and later, Rtools 4.2 on) or msvcrt
#                (R 4.0 and 4.1).  Debian's toolchain targets msvcrt.dll;
#                for ucrt its link swaps the C runtime's import library
#                (a specs file) and compiles with -D_UCRT, while its static
#                runtime (libmingwex, libgomp, winpthreads) stays the one
#                built for msvcrt (winpthreads' _setjmp is then UCRT's
#                __intrinsic_setjmp).
#   MINGW_CC     x86_64-w64-mingw32-gcc
#   WINE         wine64 or wine on the PATH, else /usr/lib/wine/wine64
#   WINE_PREFIX  the Wine prefix (made on first use, ~0.7 GB; default
#                $TMPDIR/ghmix-wine-UID, kept for the next run)
#   R_INCLUDE    R's headers (default: R.home("include"))

MINGW_CC ?= x86_64-w64-mingw32-gcc
MINGW_AR ?= $(patsubst %gcc,%ar,$(MINGW_CC))
WINDOWS_CRT ?= ucrt
WINE ?= $(firstword $(shell command -v wine64 wine 2>/dev/null) \
	$(wildcard /usr/lib/wine/wine64))
WINE_PREFIX ?= $(or $(TMPDIR),/tmp)/ghmix-wine-$(shell id -u)
R_INCLUDE ?= $(shell Rscript -e 'cat(R.home("include"))' 2>/dev/null)

WIN = win/$(WINDOWS_CRT)
ifeq ($(WINDOWS_CRT),ucrt)
WIN_SPECS = $(WIN)/ucrt.specs
WIN_CRT_CFLAGS = -D_UCRT
WIN_CRT_LDFLAGS = -specs=$(WIN_SPECS) -Wl,--defsym,_setjmp=__intrinsic_setjmp
else ifeq ($(WINDOWS_CRT),msvcrt)
WIN_SPECS =
WIN_CRT_CFLAGS =
WIN_CRT_LDFLAGS =
else
$(error WINDOWS_CRT must be ucrt or msvcrt, not '$(WINDOWS_CRT)')
endif

WIN_CFLAGS = $(CFLAGS) -fopenmp $(WIN_CRT_CFLAGS)
WIN_LDFLAGS = -static -fopenmp $(WIN_CRT_LDFLAGS) -lm

.PHONY: windows-cross windows-test windows-clean

# ------------------------------------------------------ the package's build

WIN_PKG = $(WIN)/pkg
# every R API, BLAS and LAPACK symbol a DLL of the package may import
R_EXPORTS = $(WIN)/r-exports.txt

windows-cross: $(R_EXPORTS)
	@sh ../../tools/portable-types.sh ../../src
	@test -f "$(R_INCLUDE)/Rinternals.h" || \
	  { echo "R's headers not found in '$(R_INCLUDE)' (set R_INCLUDE)"; exit 1; }
	rm -rf $(WIN_PKG)
	$(MAKE) -C ../../src -f Makevars.win -f $(CURDIR)/windows-pkg.mk \
	  MINGW_CC="$(MINGW_CC)" R_INCLUDE="$(R_INCLUDE)" \
	  OUT="$(CURDIR)/$(WIN_PKG)" windows-objects
	@export LC_ALL=C; objs=$$(find $(WIN_PKG) -name '*.o' | sort); \
	$(MINGW_CC) -shared -fopenmp -static-libgcc -o $(WIN_PKG)/ghmix.dll \
	  $$objs > $(WIN_PKG)/link.log 2>&1; \
	sed -n "s/.*undefined reference to \`\(__imp_\)\{0,1\}\([^']*\)'.*/\2/p" \
	  $(WIN_PKG)/link.log | sort -u > $(WIN_PKG)/undefined.txt; \
	missing=$$(sort -u $(R_EXPORTS) | comm -13 - $(WIN_PKG)/undefined.txt); \
	other=$$(grep -Ev 'undefined reference|more undefined references|: in function|ld returned 1 exit status' \
	  $(WIN_PKG)/link.log); \
	if [ -n "$$other" ] || [ ! -s $(WIN_PKG)/undefined.txt ]; then \
	  cat $(WIN_PKG)/link.log; \
	  echo "windows-cross: the link failed otherwise than for R's symbols"; \
	  exit 1; \
	fi; \
	if [ -n "$$missing" ]; then \
	  cat $(WIN_PKG)/link.log; \
	  echo "windows-cross: symbols neither Windows nor R provides:" $$missing; \
	  exit 1; \
	fi; \
	echo "windows-cross: $$(echo $$objs | wc -w) objects compiled with" \
	  "-Wall -Wextra -Werror; the DLL needs $$(wc -l < $(WIN_PKG)/undefined.txt)" \
	  "symbols from R, its BLAS and LAPACK, all exported by R (names checked" \
	  "against libR.so: R.dll is not here)"

# the dynamic symbols of libR.so and of the BLAS and LAPACK R links
# packages against (R CMD config BLAS_LIBS, LAPACK_LIBS)
$(R_EXPORTS):
	@mkdir -p $(dir $@)
	@libr="$$(R RHOME)/lib/libR.so"; \
	test -f "$$libr" || { echo "no $$libr (R built as a shared library)"; exit 1; }; \
	libs=$$(for l in $$(R CMD config BLAS_LIBS) $$(R CMD config LAPACK_LIBS); do \
	  case "$$l" in -l*) $(CC) -print-file-name=lib$${l#-l}.so ;; esac; done); \
	nm -D --defined-only "$$libr" $$libs | awk 'NF == 3 { print $$3 }' | \
	  sed 's/@.*//' | LC_ALL=C sort -u > $@

$(WIN_SPECS):
	@mkdir -p $(dir $@)
	$(MINGW_CC) -dumpspecs | sed 's/-lmsvcrt/-lucrt/g' > $@

# ------------------------------------------------------- the tests, on Wine

WIN_LIB_SRC = $(CORE_SRC) $(MIX_CPU_SRC) ../../src/cpu/factor_cpu.c \
	../../src/cpu/nap.c
WIN_LIB_OBJ = $(patsubst ../../src/%.c,$(WIN)/src/%.o,$(WIN_LIB_SRC)) \
	$(WIN)/win_blas.o
WIN_TESTS = $(addprefix $(WIN)/,$(addsuffix .exe,$(TESTS))) $(WIN)/Rblas.dll

$(WIN)/src/%.o: ../../src/%.c $(CORE_HDR) $(wildcard ../../src/cpu/*.h) \
	  $(WIN_SPECS)
	@mkdir -p $(dir $@)
	$(MINGW_CC) $(CPPFLAGS) $(WIN_CFLAGS) -c $< -o $@

$(WIN)/win_blas.o: win_blas.c ../../src/cpu/blas.h $(WIN_SPECS)
	$(MINGW_CC) $(CPPFLAGS) $(WIN_CFLAGS) -c $< -o $@

$(WIN)/libghmix.a: $(WIN_LIB_OBJ)
	rm -f $@
	$(MINGW_AR) rcs $@ $^

$(WIN)/%.exe: %.c check.h mix_setup.h .all_core_headers.h $(CORE_HDR) \
	  $(WIN)/libghmix.a
	$(MINGW_CC) $(CPPFLAGS) $(WIN_CFLAGS) -o $@ $< $(WIN)/libghmix.a \
	  $(WIN_LDFLAGS)

# test_platform's stand-in for an OpenBLAS Rblas.dll
$(WIN)/Rblas.dll: blas_stub.c $(WIN_SPECS)
	$(MINGW_CC) $(WIN_CFLAGS) -shared -o $@ $< $(WIN_CRT_LDFLAGS)

$(WINE_PREFIX)/.ghmix-ready:
	@test -n "$(WINE)" || { echo "Wine not found (set WINE)"; exit 1; }
	WINEPREFIX=$(WINE_PREFIX) WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml=" \
	  $(WINE) wineboot -i
	touch $@

windows-test: $(WIN_TESTS) $(WINE_PREFIX)/.ghmix-ready
	@WINEPREFIX=$(WINE_PREFIX) WINEDEBUG=-all \
	  sh run_tests.sh "$(WINE)" $(WIN)/ .exe $(TEST_RUNS)

windows-clean:
	rm -rf win
	@if [ -f $(WINE_PREFIX)/.ghmix-ready ]; then rm -rf $(WINE_PREFIX); fi

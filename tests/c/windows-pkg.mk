# tests/c/windows-pkg.mk: a stand-in for R for Windows' Makeconf, read after
# src/Makevars.win (`make -C tests/c windows-cross`, windows.mk, runs
#   make -C src -f Makevars.win -f ../tests/c/windows-pkg.mk OUT=DIR
#     windows-objects
# ): the objects Makevars.win lists, compiled as R's Makeconf for Windows
# compiles them (R's headers, -DNDEBUG, R's CFLAGS there: -O2 -Wall
# -std=gnu99 -mfpmath=sse -msse2 -mstackrealign; its OpenMP flag) with the
# MinGW-w64 compiler, and -Wextra -Werror, into OUT (never into src/).

SHLIB_OPENMP_CFLAGS = -fopenmp
WINDOWS_CFLAGS = -O2 -Wall -std=gnu99 -mfpmath=sse -msse2 -mstackrealign \
	-Wextra -Werror

windows-objects: $(addprefix $(OUT)/,$(OBJECTS))

$(OUT)/%.o: %.c
	@mkdir -p $(dir $@)
	$(MINGW_CC) -I"$(R_INCLUDE)" -DNDEBUG $(PKG_CPPFLAGS) $(PKG_CFLAGS) \
	  $(WINDOWS_CFLAGS) -c $< -o $@

// SPDX-License-Identifier: MIT
/*
 * replay.c - a main() for the fuzz targets without libFuzzer: runs each
 * input file given once, so that make check (and make asan, with the
 * sanitizers) replays the kept corpus with the project's own compiler.
 * Prints "ok N - TARGET: FILE" after each input; a crash or an abort
 * ends the run, the last "# FILE" line naming the input.
 *
 *   fuzz-replay-data FILE...
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#ifndef FUZZ_TARGET
#define FUZZ_TARGET "fuzz"
#endif

int main(int argc, char **argv)
{
	FILE *tap = fdopen(dup(1), "w");

	if (!tap)
		return 2;
	if (LLVMFuzzerInitialize)
		LLVMFuzzerInitialize(&argc, &argv);
	for (int i = 1; i < argc; i++) {
		const char *base = strrchr(argv[i], '/') ? strrchr(argv[i], '/') + 1 : argv[i];
		FILE *f = fopen(argv[i], "rb");
		unsigned char *buf = NULL;
		size_t len = 0, cap = 0, n;

		fprintf(tap, "# %s\n", argv[i]);
		fflush(tap);
		if (!f) {
			fprintf(tap, "not ok %d - %s: %s: cannot open\n", i, FUZZ_TARGET, base);
			return 1;
		}
		do {
			if (len == cap && !(buf = realloc(buf, cap = cap ? 2 * cap : 65536)))
				return 2;
			n = fread(buf + len, 1, cap - len, f);
			len += n;
		} while (n);
		fclose(f);
		LLVMFuzzerTestOneInput(buf, len);
		free(buf);
		fprintf(tap, "ok %d - %s: %s\n", i, FUZZ_TARGET, base);
		fflush(tap);
	}
	return 0;
}

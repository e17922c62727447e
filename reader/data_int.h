/* SPDX-License-Identifier: MIT */
/*
 * data_int.h - what the data directory's reader (reader/data.c) and the
 * decoder (reader/decode.c) share of a compressed .dat file
 */
#ifndef USERTRACE_DATA_INT_H
#define USERTRACE_DATA_INT_H

#include <stdint.h>

#include "usertrace/datfile.h"

/* a chunk header that a reader can trust: it fits in the file and in a chunk */
int data_chunk_valid(const struct ut_dat_chunk *ch, uint64_t off, uint64_t size);
/* the bytes a zstd frame starts with (ZSTD_MAGICNUMBER, little-endian) */
extern const unsigned char data_zstd_magic[4];

#endif

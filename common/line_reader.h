/*
 * Reads newline-terminated lines from a file that may be gzip-compressed or
 * plain (zlib reads both), with a growable buffer and a cap on line length.
 * Decompression runs on a thread of its own, a few chunks ahead of the
 * caller, so that inflating never sits on the caller's thread.
 */
#ifndef LW_LINE_READER_H
#define LW_LINE_READER_H

#include <stddef.h>

#include "common/status.h"

typedef struct LwLineReader LwLineReader;

/* Opens path for reading. Returns NULL (with err set) when it cannot. */
LwLineReader *lw_line_reader_open(const char *path, size_t max_line, LwError *err);

/* Reads the next line without its "\n" into *line (valid until the next
 * call) and its length into *len. Returns LW_OK, LW_NOTHING at the end,
 * LW_ERR_LIMIT for a line longer than max_line, LW_ERR_IO on a read error. */
LwStatus lw_line_reader_next(LwLineReader *reader, const char **line, size_t *len,
                             LwError *err);

/* Closes the file and frees the reader. NULL is safe. */
void lw_line_reader_close(LwLineReader *reader);

#endif

/*
 * The data directory: every file lodwash keeps is named by a hash (never by a
 * name from the network) and sharded two levels deep so no folder grows huge:
 *
 *   DATA/KIND/ab/cd/abcd...SUFFIX     (KIND: "raw", "clean", "graphs", ...)
 *
 * Files are written to DATA/tmp and renamed into place when complete, so a
 * crash never leaves a half file that looks whole.
 */
#ifndef LW_FILE_STORE_H
#define LW_FILE_STORE_H

#include <stddef.h>
#include <stdio.h>

#include "common/status.h"

/* Writes "DATA/KIND/ab/cd/HASHSUFFIX" into buf. Returns LW_ERR_LIMIT if buf
 * is too small. */
LwStatus lw_store_path(const char *data_dir, const char *kind, const char *hash,
                       const char *suffix, char *buf, size_t size);

/* The same path relative to the data directory ("KIND/ab/cd/HASHSUFFIX"),
 * as recorded on seeds. */
LwStatus lw_store_relpath(const char *kind, const char *hash,
                          const char *suffix, char *buf, size_t size);

/* Creates a new empty temporary file in DATA/tmp, opened for writing and
 * reading; its path goes into path_buf. The caller closes it and either
 * commits it with lw_store_commit or removes it. */
LwStatus lw_store_tmpfile(const char *data_dir, char *path_buf, size_t size,
                          FILE **out, LwError *err);

/* Renames tmp_path to final_path atomically, creating final_path's folders. */
LwStatus lw_store_commit(const char *tmp_path, const char *final_path, LwError *err);

/* Calls fn(handle, NAME, err) for each entry DATA/graphs/NAME<suffix>
 * (NAME shorter than 256 bytes), in directory order, until fn fails. No
 * graphs folder: nothing to do. */
LwStatus lw_store_each_graph(const char *data_dir, const char *suffix,
                             LwStatus (*fn)(void *handle, const char *name, LwError *err),
                             void *handle, LwError *err);

/* mkdir -p of path's parent folders (not of path itself). */
LwStatus lw_store_mkparents(const char *path, LwError *err);

#endif

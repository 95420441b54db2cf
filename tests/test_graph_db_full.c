/* A full disk is named as such in the graph database's errors (issue 24,
 * item 7): LMDB reports a short write on a full file system as EIO
 * ("Input/output error"). The same import into a 2 MB file system of its
 * own (a tmpfs in a private mount namespace: `unshare -rm`; skipped where
 * that is not allowed) fails with "no space left on device (ENOSPC)",
 * while on an ordinary folder it succeeds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/base.h"
#include "graph_store/graph_store.h"
#include "tests/support/check.h"

/* Imports 100,000 triples (about 8 MB) into a graph under dir. */
static LwStatus import(const char *dir, LwError *err)
{
  LwGraphDb *db = NULL;
  LW_TRY(lw_graph_db_open(dir, "full", false, &db, err));
  LwStatus st = lw_graph_db_begin(db, err);
  for (int i = 0; st == LW_OK && i < 100000; ++i) {
    char t[128];
    int n = snprintf(t, sizeof(t),
                     "<http://example.org/s%07d> <http://example.org/p> \"%d\" .", i, i);
    st = lw_graph_db_put(db, t, (size_t)n, err);
  }
  if (st == LW_OK) {
    st = lw_graph_db_commit(db, err);
  } else {
    lw_graph_db_abort(db);
  }
  lw_graph_db_close(db);
  return st;
}

int main(int argc, char **argv)
{
  if (argc > 1) { /* in the namespace, dir a 2 MB tmpfs */
    LwError err;
    lw_error_clear(&err);
    LwStatus st = import(argv[1], &err);
    CHECK(st != LW_OK);
    CHECK(strstr(err.message, "no space left on device (ENOSPC)") != NULL);
    fprintf(stderr, "full: %s\n", err.message);
    return lw_test_finish();
  }
  char dir[] = "/tmp/lw_graph_full_XXXXXX";
  if (!mkdtemp(dir)) {
    return 1;
  }
  LwError err;
  lw_error_clear(&err);
  CHECK_INT_EQ(import(dir, &err), LW_OK); /* undisturbed */
  char cmd[8192];
  snprintf(cmd, sizeof(cmd), "rm -rf '%s'/graphs", dir);
  CHECK_INT_EQ(system(cmd), 0);
  snprintf(cmd, sizeof(cmd), "unshare -rm true 2>/dev/null");
  if (system(cmd) != 0) {
    rmdir(dir);
    printf("SKIP: no private mount namespace (unshare -rm) for a small file system\n");
    return 77;
  }
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  self[n > 0 ? n : 0] = '\0';
  snprintf(cmd, sizeof(cmd),
           "unshare -rm sh -c 'mount -t tmpfs -o size=2m tmpfs %s && exec %s %s'", dir,
           self, dir);
  CHECK_INT_EQ(system(cmd), 0);
  rmdir(dir);
  return lw_test_finish();
}

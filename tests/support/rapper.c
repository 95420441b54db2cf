#include "tests/support/rapper.h"

#include <stdio.h>
#include <stdlib.h>

#include "base/base.h"

bool lw_test_rapper_available(void)
{
  return system("rapper --version > /dev/null 2>&1") == 0;
}

static void shell_quote(const char *s, LwBuf *out)
{
  lw_buf_append_char(out, '\'');
  for (; *s; ++s) {
    if (*s == '\'') {
      lw_buf_append_str(out, "'\\''");
    } else {
      lw_buf_append_char(out, *s);
    }
  }
  lw_buf_append_char(out, '\'');
}

/* Runs cmd (a shell command writing N-Quads to stdout) with its messages
 * sent to grep: any message at all makes the status 9. */
static bool read_quiet(const LwBuf *cmd, LwTestGraph *g)
{
  /* the N-Quads come to us on fd 3 (our pipe) */
  LwBuf full = LW_BUF_INIT, out = LW_BUF_INIT;
  lw_buf_appendf(&full, "{ %s 2>&1 >&3 3>&- | grep -q . && exit 9; exit 0; } 3>&1",
                 cmd->data);
  FILE *p = popen(full.data, "r");
  char block[65536];
  size_t got;
  while (p && (got = fread(block, 1, sizeof(block), p)) > 0) {
    lw_buf_append(&out, block, got);
  }
  int status = p ? pclose(p) : -1;
  char why[256];
  bool ok = status == 0 &&
            lw_test_graph_parse(g, out.data ? out.data : "", out.len, why, sizeof(why));
  lw_buf_free(&full);
  lw_buf_free(&out);
  return ok;
}

/* "{ timeout 30 TOOL OPTIONS 'path' 'base'" */
static bool read_with(const char *tool_and_options, const char *path, const char *base,
                      LwTestGraph *g)
{
  LwBuf cmd = LW_BUF_INIT;
  lw_buf_appendf(&cmd, "timeout 30 %s ", tool_and_options);
  shell_quote(path, &cmd);
  lw_buf_append_char(&cmd, ' ');
  shell_quote(base, &cmd);
  bool ok = read_quiet(&cmd, g);
  lw_buf_free(&cmd);
  return ok;
}

bool lw_test_rapper_read(const char *path, const char *syntax, const char *base,
                         LwTestGraph *g)
{
  char tool[64];
  snprintf(tool, sizeof(tool), "rapper -q -i %s -o nquads", syntax);
  return read_with(tool, path, base, g);
}

bool lw_test_serdi_available(void)
{
  return system("serdi -v > /dev/null 2>&1") == 0;
}

bool lw_test_serdi_read(const char *path, const char *syntax, const char *base,
                        LwTestGraph *g)
{
  char tool[64];
  snprintf(tool, sizeof(tool), "serdi -i %s -o nquads", syntax);
  return read_with(tool, path, base, g);
}

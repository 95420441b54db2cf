/*
 * HTML made well-formed XML with libxml2's HTML parser (see html_repair.h).
 */
#include "rdf_readers/html_repair.h"

#include <stdlib.h>
#include <string.h>

#include <libxml/HTMLparser.h>
#include <libxml/xmlsave.h>

bool lw_html_is_xml(const char *head, size_t len)
{
  size_t i = 0;
  if (len >= 3 && !memcmp(head, "\xEF\xBB\xBF", 3)) {
    i = 3;
  }
  while (i < len && head[i] && strchr(" \t\r\n", head[i])) {
    i++;
  }
  return len - i >= 5 && !memcmp(head + i, "<?xml", 5);
}

LwStatus lw_html_read_page(FILE *in, LwBuf *page, LwError *err)
{
  for (;;) {
    if (lw_buf_reserve(page, 65536) != LW_OK) {
      return lw_error_set(err, LW_ERR_NOMEM, "out of memory reading HTML");
    }
    size_t n = fread(page->data + page->len, 1, 65536, in);
    page->len += n;
    if (page->len > LW_HTML_MAX_BYTES) {
      return lw_error_set(err, LW_ERR_LIMIT,
                          "HTML page larger than %zu MiB (it is parsed whole)",
                          LW_HTML_MAX_BYTES >> 20);
    }
    if (n == 0) {
      if (ferror(in)) {
        return lw_error_set(err, LW_ERR_IO, "read error");
      }
      return LW_OK;
    }
  }
}

/* The repaired tree as XML: XML_SAVE_AS_XML, or libxml2 would write an HTML
 * document back as HTML (<br>, &nbsp;). */
static LwStatus save_as_xml(htmlDocPtr doc, char **xml, size_t *xml_len, LwError *err)
{
  xmlBufferPtr out = xmlBufferCreate();
  xmlSaveCtxtPtr save = out ? xmlSaveToBuffer(out, "UTF-8", XML_SAVE_AS_XML) : NULL;
  if (!save) {
    xmlBufferFree(out);
    return lw_error_set(err, LW_ERR_NOMEM, "cannot write HTML as XML");
  }
  long written = xmlSaveDoc(save, doc);
  xmlSaveClose(save);
  if (written < 0) {
    xmlBufferFree(out);
    return lw_error_set(err, LW_ERR_NOMEM, "cannot write HTML as XML");
  }
  *xml_len = (size_t)xmlBufferLength(out);
  *xml = malloc(*xml_len + 1);
  if (!*xml) {
    xmlBufferFree(out);
    return lw_error_set(err, LW_ERR_NOMEM, "out of memory");
  }
  memcpy(*xml, xmlBufferContent(out), *xml_len);
  (*xml)[*xml_len] = '\0';
  xmlBufferFree(out);
  return LW_OK;
}

LwStatus lw_html_to_xml(const char *html, size_t len, char **xml, size_t *xml_len,
                        LwError *err)
{
  *xml = NULL;
  *xml_len = 0;
  if (len > LW_HTML_MAX_BYTES) {
    return lw_error_set(err, LW_ERR_LIMIT, "HTML page larger than %zu MiB",
                        LW_HTML_MAX_BYTES >> 20);
  }
  /* UTF-8 whatever a <meta> says: the unpack stage has recoded the page
   * already, and a charset left from before would decode it twice */
  htmlDocPtr doc = htmlReadMemory(html, (int)len, NULL, "UTF-8",
                                  HTML_PARSE_RECOVER | HTML_PARSE_NONET |
                                    HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING |
                                    HTML_PARSE_IGNORE_ENC);
  if (!doc || !xmlDocGetRootElement(doc)) {
    xmlFreeDoc(doc);
    return lw_error_set(err, LW_ERR_SYNTAX, "no HTML element found");
  }
  LwStatus st = save_as_xml(doc, xml, xml_len, err);
  xmlFreeDoc(doc);
  return st;
}

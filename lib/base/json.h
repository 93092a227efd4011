/* json: strings written as JSON string literals, for every format that writes JSON
 * (speedscope, the HTML report's data).
 *
 * Quotes, backslashes and control characters are escaped and bytes that are not UTF-8
 * become U+FFFD, so the output is valid JSON whatever a trace's names hold.  With
 * JSON_IN_SCRIPT the literal is also safe inside an HTML <script> element: '<' is written
 * \u003c (no "</script>" or "<!--" can close or confuse the element) and U+2028/U+2029
 * as escapes (line terminators to older JavaScript parsers).
 */
#ifndef PC_JSON_H
#define PC_JSON_H

#include "util.h"

#define JSON_IN_SCRIPT 1u

/* s as a quoted JSON string. */
void json_put_string(FILE *out, const char *s, unsigned flags);
/* n bytes as a quoted JSON string of their base64 (RFC 4648, padded): compact binary data
 * (a page decodes it with atob()); safe inside <script> as it is. */
void json_put_base64(FILE *out, const void *data, size_t n);

#endif

/* html_assets: the HTML report's script and styles (lib/report/html/: report.css and the scripts),
 * made into C strings at build time by lib/report/html/embed.py. */
#ifndef PC_HTML_ASSETS_H
#define PC_HTML_ASSETS_H

extern const char html_asset_css[]; /* report.css */
extern const char html_asset_js[];  /* the *.js files, in the order meson lists them */

#endif

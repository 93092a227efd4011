#!/bin/sh
# Installs the npm packages of package.json (speedscope for its file-format schema, ajv,
# jsdom, puppeteer-core for the HTML report in chromium) once into a cache keyed by
# package.json, and prints that directory; exit 77 with a reason where node or npm is
# missing or the registry cannot be reached.
here=$(cd "$(dirname "$0")" && pwd)
command -v node >/dev/null || { echo "SKIP: node is not installed: run scripts/setup as root"; exit 77; }
command -v npm >/dev/null || { echo "SKIP: npm is not installed: run scripts/setup as root"; exit 77; }
key=$(cat "$here/package.json" | sha256sum | cut -c1-16)
dir=${TMPDIR:-/tmp}/tests/formats-$key
if [ ! -f "$dir/.done" ]; then
	mkdir -p "$dir" || exit 1
	cp "$here/package.json" "$dir/"
	# One installer at a time: tests may run in parallel builds.
	(
		flock 9
		[ -f "$dir/.done" ] && exit 0
		cd "$dir" && timeout 600 npm install --no-audit --no-fund --loglevel=error >"$dir/npm.log" 2>&1 &&
			touch "$dir/.done"
	) 9>"$dir/.lock"
	[ -f "$dir/.done" ] || { echo "SKIP: npm install failed (it needs registry.npmjs.org): $(tail -1 "$dir/npm.log")"; exit 77; }
fi
echo "$dir"

#!/usr/bin/env bash
# The C sources are formatted with the committed .clang-format.
. "$(dirname "$0")/lib.sh"
need_cmd clang-format
src=$TEST_SRCDIR/..
while IFS= read -r f; do
	clang-format --dry-run -Werror "$f" 2>/dev/null || fail "${f#$src/} is not clang-formatted (clang-format -i ${f#$src/})"
done < <(find "$src/lib" "$src/cmd" -name '*.[ch]' | sort)
[ "$fails" -eq 0 ] && pass "every lib/ and cmd/ source is clang-formatted"
finish

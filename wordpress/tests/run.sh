#!/bin/sh
# Lints every PHP file of the plugin and its tests with Debian's PHP, then runs the PHPUnit tests.
# Exits non-zero on the first failure. Needs: php (8.1+), phpunit (Debian's 9.6: apt-get install -y phpunit).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
PHP=${PHP:-php}
PHPUNIT=${PHPUNIT:-phpunit}

find "$root/loyalty-bridge" "$here" -name '*.php' -print | sort | while read -r file; do
	"$PHP" -l "$file" >/dev/null || { echo "php -l failed: $file" >&2; exit 1; }
done
echo "php -l: every file parses"

exec "$PHPUNIT" -c "$here/phpunit.xml"

#!/bin/bash
# The plugin in a real WordPress (Debian's `wordpress` package, 6.1) on PHP's built-in server with the local
# MariaDB, connected to a stand-in bridge (fake-bridge.php). No WooCommerce: it is in neither Debian nor npm, so
# the My Account tab is covered only by the PHPUnit tests. Needs: apt-get install wordpress php8.2-mysql
# wordpress-theme-twentytwentyone, MariaDB
# on 127.0.0.1:3306 reachable as root. Prints each check; exits non-zero on the first that fails.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
plugin=$(cd "$here/../../loyalty-bridge" && pwd)
work=$(mktemp -d /tmp/loyalty-bridge-wp.XXXXXX)
db="lb_wp_smoke_$$"
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wp_port=$(free_port)
bridge_port=$(free_port)
site="http://127.0.0.1:$wp_port"
pids=()
cleanup() { # KEEP=1 keeps the site's files and database to look at; the servers always stop.
	for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
	if [ -n "${KEEP:-}" ]; then echo "kept $work and database $db" >&2; return; fi
	mysql -uroot -e "DROP DATABASE IF EXISTS $db" || true
	rm -rf "$work"
}
trap cleanup EXIT
check() { # check <what> <condition...>
	local what=$1; shift
	if "$@"; then echo "ok   $what"; else echo "FAIL $what" >&2; exit 1; fi
}

cp -rL /usr/share/wordpress "$work/wp"
ln -s "$plugin" "$work/wp/wp-content/plugins/loyalty-bridge"
mysql -uroot -e "CREATE DATABASE $db"
cat > "$work/wp/wp-config.php" <<CONFIG
<?php
define( 'DB_NAME', '$db' );
define( 'DB_USER', 'root' );
define( 'DB_PASSWORD', '' );
define( 'DB_HOST', '127.0.0.1' );
define( 'DB_CHARSET', 'utf8mb4' );
define( 'WP_HOME', '$site' );
define( 'WP_SITEURL', '$site' );
define( 'WP_DEBUG', true );
define( 'WP_DEBUG_LOG', '$work/debug.log' );
define( 'WP_DEBUG_DISPLAY', false );
\$table_prefix = 'wp_';
foreach ( array( 'AUTH_KEY', 'SECURE_AUTH_KEY', 'LOGGED_IN_KEY', 'NONCE_KEY', 'AUTH_SALT', 'SECURE_AUTH_SALT', 'LOGGED_IN_SALT', 'NONCE_SALT' ) as \$name ) {
	define( \$name, '$(head -c 32 /dev/urandom | base64)' . \$name );
}
defined( 'ABSPATH' ) || define( 'ABSPATH', __DIR__ . '/' );
require_once ABSPATH . 'wp-settings.php';
CONFIG
cli() { php "$here/wp-cli.php" "$work/wp" "$@"; }

php -S "127.0.0.1:$wp_port" -t "$work/wp" >"$work/wp-server.log" 2>&1 &
pids+=($!)
key=$(php -r 'echo rtrim(strtr(base64_encode(random_bytes(32)), "+/", "-_"), "=");')
code="lb1.$(php -r 'echo rtrim(strtr(base64_encode($argv[1]), "+/", "-_"), "=");' "http://127.0.0.1:$bridge_port").$(php -r 'echo rtrim(strtr(base64_encode(random_bytes(32)), "+/", "-_"), "=");')"
FAKE_BRIDGE_LOG="$work/bridge.log" FAKE_BRIDGE_CODE="$code" FAKE_BRIDGE_STORE="127.0.0.1:$wp_port" FAKE_BRIDGE_KEY="$key" \
	php -S "127.0.0.1:$bridge_port" "$here/fake-bridge.php" >"$work/bridge-server.log" 2>&1 &
pids+=($!)
sleep 1

page=$(cli install "$site" 2>"$work/install.log")
check "the plugin activates on WordPress $(php -r "include '$work/wp/wp-includes/version.php'; echo \$wp_version;")" true

connected=$(cli connect "$code")
check "connects with the code (real wp_safe_remote_post to the bridge, let through on this machine by WP_DEBUG)" grep -q '"ok":true' <<<"$connected"
check "keeps the connection with autoload off" grep -Eq 'autoload=(no|off)' <<<"$connected"
check "sent the code, the site, its wp-admin and the version" grep -q "\"siteUrl\":\"$site\",\"adminUrl\":\"$site/wp-admin/\",\"pluginVersion\":\"0.1.0\"" "$work/bridge.log"
again=$(cli connect "$code")
check "a refused code says why in the plugin's words" grep -q 'refused the code: this code is unknown or was already used' <<<"$again"

read -r c_name c_value c_nonce _ _ < <(cli session ada logged_in)
identity="$site/?rest_route=/loyalty-bridge/v1/identity"
curl -s -D "$work/h1" -o "$work/b1" -H "Cookie: $c_name=$c_value" -H "X-WP-Nonce: $c_nonce" "$identity"
check "identity: 200 for a signed-in customer with the REST nonce" grep -q '^HTTP/1.1 200' "$work/h1"
check "identity: Cache-Control no-store, private" grep -qi '^Cache-Control: no-store, private' "$work/h1"
payload=$(php -r '$t=json_decode(file_get_contents($argv[1]),true)["token"]; echo base64_decode(strtr(explode(".",$t)[0],"-_","+/"));' "$work/b1")
check "identity: the token names the customer by their account e-mail (not the billing one), not yet proven, and no phone" grep -q '"customerId":"2","email":"ada.account@example.com","emailProven":false,"iat"' <<<"$payload"
sig_ok=$(php -r '$t=explode(".",json_decode(file_get_contents($argv[1]),true)["token"]); $k=base64_decode(strtr($argv[2],"-_","+/")); echo hash_equals(rtrim(strtr(base64_encode(hash_hmac("sha256","loyalty-bridge identity v1.".$t[0],$k,true)),"+/","-_"),"="), $t[1]) ? "yes" : "no";' "$work/b1" "$key")
check "identity: the HMAC verifies under the store's key" test "$sig_ok" = yes
status() { curl -s -o /dev/null -w '%{http_code}' "$@"; }
check "identity: 401 with the cookie but no nonce (WordPress treats it as a guest)" test "$(status -H "Cookie: $c_name=$c_value" "$identity")" = 401
check "identity: 403 with a wrong nonce" test "$(status -H "Cookie: $c_name=$c_value" -H 'X-WP-Nonce: 0123456789' "$identity")" = 403
check "identity: 401 for a guest" test "$(status "$identity")" = 401

curl -s -H "Cookie: $c_name=$c_value" "$page" >"$work/page.html"
check "storefront: the widget script, deferred (WordPress 6.1), its settings on its own tag" grep -Eq "<script data-site=\"$site/\" data-admin=\"$site/wp-admin/\" data-rest-nonce=\"[0-9a-f]{10}\" defer src=.http://127.0.0.1:$bridge_port/woocommerce/storefront/widget.js\?store=127.0.0.1%3A$wp_port" "$work/page.html"
check "storefront: no settings element, which a post could also print" bash -c "! grep -q 'loyalty-bridge-config' '$work/page.html'"
check "storefront: the shortcode and the block print the panel" test "$(grep -o '<div data-loyalty-points-panel></div>' "$work/page.html" | wc -l)" = 2
check "storefront: no token in the page" bash -c "! grep -q token '$work/page.html'"
check "block: registered with its editor script" grep -q 'registered, editor script' < <(cli block)

door="$site/wp-admin/admin-post.php?action=loyalty_bridge_door&nonce=AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_abcde"
read -r a_name a_value _ l_value l_name < <(cli session admin auth)
curl -s -D "$work/h2" -o /dev/null -H "Cookie: $a_name=$a_value; $l_name=$l_value" "$door"
check "door: an administrator is redirected to the bridge with a signed payload" grep -Eq "^Location: http://127.0.0.1:$bridge_port/woocommerce/plugin-door/finish\?payload=[A-Za-z0-9_-]+&sig=[A-Za-z0-9_-]{43}" "$work/h2"
read -r s_name s_value _ sl_value sl_name < <(cli session ada auth)
check "door: a customer gets WordPress's 403" test "$(status -H "Cookie: $s_name=$s_value; $sl_name=$sl_value" "$door")" = 403
curl -s -D "$work/h3" -o /dev/null "$door"
check "door: a signed-out visitor is sent to sign in, and back" grep -q '^Location: .*wp-login.php?redirect_to=.*loyalty_bridge_door' "$work/h3"

curl -s -H "Cookie: $a_name=$a_value; $l_name=$l_value" "$site/wp-admin/options-general.php?page=loyalty-bridge" >"$work/settings.html"
check "settings: says what the store is connected to" grep -q "Connected to <strong>127.0.0.1</strong> as store <strong>127.0.0.1:$wp_port</strong>." "$work/settings.html"
door_link="http://127.0.0.1:$bridge_port/woocommerce/plugin-door?store=127.0.0.1%3A$wp_port"
check "settings: the admin menu entry is a page of the plugin's" grep -q "<li><a href='options-general.php?page=loyalty-bridge-open'>Open your loyalty program" "$work/settings.html"
curl -s -D "$work/h5" -o /dev/null -H "Cookie: $a_name=$a_value; $l_name=$l_value" "$site/wp-admin/options-general.php?page=loyalty-bridge-open"
check "settings: which opens the door" grep -q "^Location: $door_link" "$work/h5"
check "settings: the page's button opens the door" grep -q "<a class=\"button button-primary\" href=\"$door_link\">Open your loyalty program" "$work/settings.html"
read -r m_name m_value m_nonce ml_value ml_name < <(cli session manager auth loyalty_bridge_disconnect)
check "settings: a shop manager cannot disconnect, even with the form's nonce" test "$(status -H "Cookie: $m_name=$m_value; $ml_name=$ml_value" --data "loyalty_bridge_action=disconnect&_wpnonce=$m_nonce" "$site/wp-admin/options-general.php?page=loyalty-bridge")" = 403
form_nonce=$(grep -o 'name="_wpnonce" value="[0-9a-f]*"' "$work/settings.html" | head -1 | sed 's/.*value="//;s/"//')
curl -s -D "$work/h4" -o /dev/null -H "Cookie: $a_name=$a_value; $l_name=$l_value" \
	--data "loyalty_bridge_action=disconnect&_wpnonce=$form_nonce" "$site/wp-admin/options-general.php?page=loyalty-bridge"
check "settings: Disconnect (with the form's nonce) redirects back" grep -q '^Location: .*loyalty_bridge=disconnected' "$work/h4"
check "settings: Disconnect told the bridge, signed" grep -Eq '^POST /woocommerce/plugin/disconnect \{"payload":"[A-Za-z0-9_-]+","sig":"[A-Za-z0-9_-]{43}"\}' "$work/bridge.log"
check "settings: after Disconnect no widget is printed" bash -c "! curl -s '$page' | grep -q widget.js"
# WordPress 6.1 itself logs PHP 8.2 deprecations; only the plugin's own notices count here.
check "no PHP notice from the plugin in WordPress's debug.log" bash -c "! grep -s 'plugins/loyalty-bridge' '$work/debug.log'"
echo "all checks passed"

<?php
/**
 * A stand-in bridge for the real-WordPress smoke run (PHP's built-in server router): answers the connect exchange
 * of docs/wordpress-plugin.md §1 for the one code it was started with, once (refusing others in the bridge's words),
 * takes any disconnect, and serves an empty widget.js.
 */

declare(strict_types=1);

$path = (string) parse_url( $_SERVER['REQUEST_URI'], PHP_URL_PATH );
file_put_contents( getenv( 'FAKE_BRIDGE_LOG' ), $_SERVER['REQUEST_METHOD'] . ' ' . $_SERVER['REQUEST_URI'] . ' ' . file_get_contents( 'php://input' ) . "\n", FILE_APPEND );

if ( 'POST' === $_SERVER['REQUEST_METHOD'] && '/woocommerce/plugin/connect' === $path ) {
	$body = json_decode( (string) file_get_contents( 'php://input' ), true );
	header( 'Content-Type: application/json' );
	$used = getenv( 'FAKE_BRIDGE_LOG' ) . '.code-used';
	if ( ! is_array( $body ) || ( $body['code'] ?? null ) !== getenv( 'FAKE_BRIDGE_CODE' ) || file_exists( $used ) ) {
		http_response_code( 400 );
		echo json_encode( array( 'error' => 'this code is unknown or was used: ask for a new one on your loyalty page' ) );
		return true;
	}
	touch( $used ); // A code works once.
	echo json_encode( array( 'store' => getenv( 'FAKE_BRIDGE_STORE' ), 'keyId' => 'pk_SmokeTest001', 'key' => getenv( 'FAKE_BRIDGE_KEY' ) ) );
	return true;
}
if ( 'POST' === $_SERVER['REQUEST_METHOD'] && '/woocommerce/plugin/disconnect' === $path ) {
	header( 'Content-Type: application/json' );
	echo json_encode( array( 'disconnected' => true ) );
	return true;
}
if ( '/woocommerce/storefront/widget.js' === $path ) {
	header( 'Content-Type: text/javascript' );
	echo "/* the bridge's widget */\n";
	return true;
}
http_response_code( 404 );
return true;

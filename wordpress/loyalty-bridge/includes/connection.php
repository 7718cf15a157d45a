<?php
/**
 * The connection to the bridge: the one-time code the merchant pastes, its server-side exchange for the store's
 * plugin key, and the option that keeps the result (docs/wordpress-plugin.md §1). The key never ships in the zip.
 *
 * @package LoyaltyBridge
 */

declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

const LOYALTY_BRIDGE_OPTION = 'loyalty_bridge_connection';

/**
 * The kept connection, or null when the store is not connected (or the option is damaged).
 *
 * @return array{bridge_url: string, store: string, key_id: string, key: string}|null
 */
function loyalty_bridge_connection(): ?array {
	$kept = get_option( LOYALTY_BRIDGE_OPTION, null );
	if ( ! is_array( $kept ) ) {
		return null;
	}
	foreach ( array( 'bridge_url', 'store', 'key_id', 'key' ) as $field ) {
		if ( ! isset( $kept[ $field ] ) || ! is_string( $kept[ $field ] ) || '' === $kept[ $field ] ) {
			return null;
		}
	}
	return array(
		'bridge_url' => $kept['bridge_url'],
		'store'      => $kept['store'],
		'key_id'     => $kept['key_id'],
		'key'        => $kept['key'],
	);
}

/**
 * Reads a pasted connection code: "lb1.<base64url of the bridge's address>.<32 random bytes, base64url>".
 * The bridge's address must be https; plain http only to a loopback address, and only when WP_DEBUG is on.
 *
 * @return array{ok: true, code: string, bridge_url: string}|array{ok: false, error: string}
 */
function loyalty_bridge_parse_code( string $pasted, bool $allow_loopback_http ): array {
	$code  = trim( $pasted );
	$parts = explode( '.', $code );
	if ( 3 !== count( $parts ) || 'lb1' !== $parts[0] ) {
		return loyalty_bridge_refusal( __( 'This is not a connection code. Copy the whole code from your loyalty program\'s page (Set up, "In your store") and paste it again.', 'loyalty-bridge' ) );
	}
	$secret = loyalty_bridge_base64url_decode( $parts[2] );
	if ( null === $secret || 32 !== strlen( $secret ) ) {
		return loyalty_bridge_refusal( __( 'This connection code is incomplete. Copy the whole code and paste it again.', 'loyalty-bridge' ) );
	}
	$address = loyalty_bridge_base64url_decode( $parts[1] );
	$url     = null === $address ? false : wp_parse_url( $address );
	if ( ! is_array( $url ) || empty( $url['host'] ) || empty( $url['scheme'] ) ) {
		return loyalty_bridge_refusal( __( 'This connection code does not name a loyalty program address. Ask your loyalty program\'s page for a new code.', 'loyalty-bridge' ) );
	}
	$scheme = strtolower( $url['scheme'] );
	$host   = strtolower( $url['host'] );
	if ( isset( $url['user'] ) || isset( $url['pass'] ) || isset( $url['query'] ) || isset( $url['fragment'] ) ) {
		return loyalty_bridge_refusal( __( 'This connection code names an address this plugin will not connect to. Ask your loyalty program\'s page for a new code.', 'loyalty-bridge' ) );
	}
	$plain_http_allowed = 'http' === $scheme && $allow_loopback_http && loyalty_bridge_is_loopback_host( $host );
	if ( 'https' !== $scheme && ! $plain_http_allowed ) {
		return loyalty_bridge_refusal( __( 'This connection code names an address without https. The plugin only connects over https.', 'loyalty-bridge' ) );
	}
	$port = isset( $url['port'] ) ? ':' . (int) $url['port'] : '';
	$path = isset( $url['path'] ) ? rtrim( $url['path'], '/' ) : '';
	// A path of plain segments only: the address is printed in wp-admin and in every page's script tag, and a
	// bridge's address needs no quote, angle bracket or dot segment.
	if ( 1 !== preg_match( '#^(/[A-Za-z0-9_~-][A-Za-z0-9._~-]*)*$#', $path ) ) {
		return loyalty_bridge_refusal( __( 'This connection code names an address this plugin will not connect to. Ask your loyalty program\'s page for a new code.', 'loyalty-bridge' ) );
	}
	return array(
		'ok'         => true,
		'code'       => $code,
		'bridge_url' => $scheme . '://' . $host . $port . $path,
	);
}

/**
 * Exchanges a pasted code for the store's plugin key and keeps it. A refusal of any kind keeps nothing.
 *
 * @return array{ok: true, connection: array{bridge_url: string, store: string, key_id: string, key: string}}|array{ok: false, error: string}
 */
function loyalty_bridge_connect( string $pasted ): array {
	$parsed = loyalty_bridge_parse_code( $pasted, defined( 'WP_DEBUG' ) && WP_DEBUG );
	if ( ! $parsed['ok'] ) {
		return $parsed;
	}
	$response = loyalty_bridge_post_to_bridge(
		$parsed['bridge_url'] . '/woocommerce/plugin/connect',
		array(
			'code'          => $parsed['code'],
			'siteUrl'       => home_url(),
			// Not always under siteUrl: WordPress may live in a directory of its own.
			'adminUrl'      => admin_url(),
			'pluginVersion' => LOYALTY_BRIDGE_VERSION,
		),
		15
	);
	$host = (string) wp_parse_url( $parsed['bridge_url'], PHP_URL_HOST );
	if ( is_wp_error( $response ) ) {
		/* translators: %s: the loyalty program's host name */
		return loyalty_bridge_refusal( sprintf( __( 'Could not reach your loyalty program at %s. Check this site can make outgoing https requests, then try again with a new code.', 'loyalty-bridge' ), $host ) );
	}
	$status = (int) wp_remote_retrieve_response_code( $response );
	$body   = json_decode( (string) wp_remote_retrieve_body( $response ), true );
	if ( 400 === $status ) {
		$words = loyalty_bridge_refusal_words( is_array( $body ) ? ( $body['error'] ?? null ) : null );
		/* translators: %s: the loyalty program's reason, in its words */
		return loyalty_bridge_refusal( sprintf( __( 'Your loyalty program refused the code: %s. Ask its page for a new code and paste it here.', 'loyalty-bridge' ), $words ) );
	}
	if ( 200 !== $status ) {
		/* translators: %1$s: the loyalty program's host name, %2$d: an HTTP status */
		return loyalty_bridge_refusal( sprintf( __( 'Your loyalty program at %1$s answered with an error (HTTP %2$d). Try again in a minute with a new code.', 'loyalty-bridge' ), $host, $status ) );
	}
	$store  = is_array( $body ) && isset( $body['store'] ) && is_string( $body['store'] ) ? $body['store'] : '';
	$key_id = is_array( $body ) && isset( $body['keyId'] ) && is_string( $body['keyId'] ) ? $body['keyId'] : '';
	$key    = is_array( $body ) && isset( $body['key'] ) && is_string( $body['key'] ) ? $body['key'] : '';
	$bytes  = loyalty_bridge_base64url_decode( $key );
	$valid  = '' !== $store && strlen( $store ) <= 255 && 1 !== preg_match( '/[\x00-\x20\x7f]/', $store )
		&& 1 === preg_match( '/^pk_[A-Za-z0-9_-]{12}$/', $key_id )
		&& null !== $bytes && 32 === strlen( $bytes );
	if ( ! $valid ) {
		/* translators: %s: the loyalty program's host name */
		return loyalty_bridge_refusal( sprintf( __( 'The answer from %s is not a loyalty program\'s. Check the code comes from your loyalty program\'s page.', 'loyalty-bridge' ), $host ) );
	}
	$connection = array(
		'bridge_url' => $parsed['bridge_url'],
		'store'      => $store,
		'key_id'     => $key_id,
		'key'        => $key,
	);
	// Deleted then added, so the option is never autoloaded, whatever an earlier one was.
	delete_option( LOYALTY_BRIDGE_OPTION );
	add_option( LOYALTY_BRIDGE_OPTION, $connection, '', false );
	return array(
		'ok'         => true,
		'connection' => $connection,
	);
}

/**
 * Forgets the connection: the key is gone from this site and nothing is signed any more. First the bridge is told,
 * signed for that purpose alone, so that it revokes the key too (a copy of it elsewhere, a backup, opens nothing); if
 * the bridge cannot be reached the key still goes from here. Whether the bridge said it forgot the key.
 */
function loyalty_bridge_disconnect( ?int $now = null ): bool {
	$connection = loyalty_bridge_connection();
	$told       = false;
	if ( null !== $connection ) {
		$signed   = loyalty_bridge_sign(
			$connection['key'],
			'loyalty-bridge disconnect v1',
			array(
				'purpose' => 'disconnect',
				'store'   => $connection['store'],
				'keyId'   => $connection['key_id'],
				'iat'     => $now ?? time(),
			)
		);
		$response = loyalty_bridge_post_to_bridge( $connection['bridge_url'] . '/woocommerce/plugin/disconnect', $signed, 10 );
		$answer   = is_wp_error( $response ) ? null : json_decode( (string) wp_remote_retrieve_body( $response ), true );
		$told     = ! is_wp_error( $response ) && 200 === (int) wp_remote_retrieve_response_code( $response )
			&& is_array( $answer ) && true === ( $answer['disconnected'] ?? null );
	}
	delete_option( LOYALTY_BRIDGE_OPTION );
	return $told;
}

/**
 * A refusal in plain words.
 *
 * @return array{ok: false, error: string}
 */
function loyalty_bridge_refusal( string $words ): array {
	return array(
		'ok'    => false,
		'error' => $words,
	);
}

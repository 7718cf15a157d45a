<?php
/**
 * What the plugin signs for the bridge: an HMAC-SHA256 under the store's plugin key over
 * "<purpose>.<payload as sent, base64url>", so a signature made for one purpose opens nothing at another
 * (docs/wordpress-plugin.md). The key is the 32 bytes the bridge sent as base64url, decoded.
 *
 * @package LoyaltyBridge
 */

declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

const LOYALTY_BRIDGE_PURPOSE_DOOR     = 'loyalty-bridge merchant-door v1';
const LOYALTY_BRIDGE_PURPOSE_IDENTITY = 'loyalty-bridge identity v1';

/** Base64url without padding, as the bridge writes and reads it. */
function loyalty_bridge_base64url_encode( string $bytes ): string {
	return rtrim( strtr( base64_encode( $bytes ), '+/', '-_' ), '=' );
}

/**
 * The bytes of a base64url text, or null when it is not one. Only the canonical spelling is accepted, so a
 * value has one written form (the bridge hashes and compares the text).
 */
function loyalty_bridge_base64url_decode( string $text ): ?string {
	if ( '' === $text || 1 !== preg_match( '/^[A-Za-z0-9_-]+$/', $text ) ) {
		return null;
	}
	$bytes = base64_decode( strtr( $text, '-_', '+/' ), true );
	if ( false === $bytes || loyalty_bridge_base64url_encode( $bytes ) !== $text ) {
		return null;
	}
	return $bytes;
}

/**
 * The payload as sent (base64url of its JSON) and its signature for that purpose.
 *
 * @param string               $key_base64url The store's plugin key, as the bridge sent it.
 * @param string               $purpose       One of the LOYALTY_BRIDGE_PURPOSE_* strings.
 * @param array<string, mixed> $payload       The fields the contract names, in its order.
 * @return array{payload: string, sig: string}
 */
function loyalty_bridge_sign( string $key_base64url, string $purpose, array $payload ): array {
	$key = loyalty_bridge_base64url_decode( $key_base64url );
	if ( null === $key ) {
		// The key was checked when it was stored; a bad one here is a damaged option, not a user's error.
		throw new UnexpectedValueException( 'The stored plugin key is not base64url.' );
	}
	$json    = json_encode( $payload, JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE | JSON_THROW_ON_ERROR );
	$encoded = loyalty_bridge_base64url_encode( $json );
	$sig     = hash_hmac( 'sha256', $purpose . '.' . $encoded, $key, true );
	return array(
		'payload' => $encoded,
		'sig'     => loyalty_bridge_base64url_encode( $sig ),
	);
}

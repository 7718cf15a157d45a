<?php
/**
 * GET /wp-json/loyalty-bridge/v1/identity: a short-lived token, signed under the store's key, saying which customer
 * is signed in (docs/wordpress-plugin.md §3). The widget fetches it from the browser; it is never printed into a
 * page, where a page cache would serve one customer's token to another.
 *
 * The REST nonce is checked by WordPress itself: with cookie authentication, rest_cookie_check_errors() (the
 * rest_authentication_errors filter) treats a request with no X-WP-Nonce / _wpnonce as a guest's and answers a
 * wrong one with 403 rest_cookie_invalid_nonce. So another site cannot read a customer's token through the
 * cookie alone, and the permission callback below only needs to ask whether someone is signed in.
 *
 * @package LoyaltyBridge
 */

declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

const LOYALTY_BRIDGE_IDENTITY_LIFETIME = 300;

function loyalty_bridge_register_identity_route(): void {
	register_rest_route(
		'loyalty-bridge/v1',
		'/identity',
		array(
			'methods'             => 'GET',
			'callback'            => 'loyalty_bridge_identity_response',
			'permission_callback' => 'loyalty_bridge_identity_permission',
		)
	);
}
add_action( 'rest_api_init', 'loyalty_bridge_register_identity_route' );

/** @return true|WP_Error */
function loyalty_bridge_identity_permission() {
	if ( is_user_logged_in() ) {
		return true;
	}
	return new WP_Error( 'rest_not_logged_in', __( 'Sign in to see your points.', 'loyalty-bridge' ), array( 'status' => 401 ) );
}

/**
 * Who the customer is, as the bridge reads it: the account's e-mail, never the billing e-mail (a customer types that
 * at every checkout, and could type anyone's to spend their points), and whether its owner proved it
 * (email-proof.php): the bridge takes an address nobody proved as no one's. No phone: the billing phone is typed by
 * the customer and checked by no one, and the bridge takes it as nobody's.
 *
 * @param array{bridge_url: string, store: string, key_id: string, key: string} $connection
 * @return array<string, bool|int|string>
 */
function loyalty_bridge_identity_payload( array $connection, WP_User $user, int $now ): array {
	return array(
		'purpose'     => 'storefront-identity',
		'store'       => $connection['store'],
		'keyId'       => $connection['key_id'],
		'customerId'  => (string) $user->ID,
		'email'       => trim( (string) $user->user_email ),
		'emailProven' => loyalty_bridge_email_proven( $user ),
		'iat'         => $now,
		'exp'         => $now + LOYALTY_BRIDGE_IDENTITY_LIFETIME,
	);
}

/** "<payload base64url>.<HMAC base64url>" for the signed-in customer. */
function loyalty_bridge_identity_token( array $connection, WP_User $user, int $now ): string {
	$signed = loyalty_bridge_sign( $connection['key'], LOYALTY_BRIDGE_PURPOSE_IDENTITY, loyalty_bridge_identity_payload( $connection, $user, $now ) );
	return $signed['payload'] . '.' . $signed['sig'];
}

/** @return WP_REST_Response|WP_Error */
function loyalty_bridge_identity_response( WP_REST_Request $request ) {
	$connection = loyalty_bridge_connection();
	if ( null === $connection ) {
		return new WP_Error( 'loyalty_bridge_not_connected', __( 'This store is not connected to its loyalty program.', 'loyalty-bridge' ), array( 'status' => 503 ) );
	}
	// The REST server sends WordPress's no-cache headers after the response's own (6.3.2, and the 6.1 and 6.2
	// security releases), and before 6.3 those lack no-store: so the value is set where they are made.
	add_filter( 'nocache_headers', 'loyalty_bridge_no_store_headers' );
	nocache_headers();
	$response = new WP_REST_Response( array( 'token' => loyalty_bridge_identity_token( $connection, wp_get_current_user(), time() ) ), 200 );
	$response->header( 'Cache-Control', 'no-store, private' );
	return $response;
}

/**
 * WordPress's no-cache headers, with Cache-Control: no-store, private, for the identity answer only.
 *
 * @param array<string, string> $headers
 * @return array<string, string>
 */
function loyalty_bridge_no_store_headers( array $headers ): array {
	$headers['Cache-Control'] = 'no-store, private';
	return $headers;
}

<?php
/**
 * The merchant's way from wp-admin to their loyalty program's page (docs/wordpress-plugin.md §2). The menu link
 * proves nothing; the bridge sets a nonce cookie in the merchant's browser and sends it here, and the plugin signs
 * that nonce for a user who manages WooCommerce. The bridge accepts the signature only from the browser that holds
 * the cookie, so the signed link is worth nothing handed to another browser.
 *
 * @package LoyaltyBridge
 */

declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

/** The plain link the menu entry opens: the same for everyone, it proves nothing. */
function loyalty_bridge_door_entry_url( array $connection ): string {
	return $connection['bridge_url'] . '/woocommerce/plugin-door?store=' . rawurlencode( $connection['store'] );
}

/**
 * The menu entry's page (settings-page.php), before WordPress draws anything: to the bridge's door. WordPress has
 * checked the entry's capability by then.
 */
function loyalty_bridge_open_door(): void {
	$connection = loyalty_bridge_connection();
	if ( null === $connection ) {
		wp_die( esc_html__( 'This store is not connected to a loyalty program. Connect it in WooCommerce › Loyalty points.', 'loyalty-bridge' ), '', array( 'response' => 409 ) );
	}
	// wp_redirect, not wp_safe_redirect: the bridge is another host by design, its address from the connection only.
	wp_redirect( loyalty_bridge_door_entry_url( $connection ) ); // phpcs:ignore WordPress.Security.SafeRedirect
	loyalty_bridge_exit();
}

/**
 * The signed way back to the bridge, for one door nonce and one WordPress user.
 *
 * @param array{bridge_url: string, store: string, key_id: string, key: string} $connection
 */
function loyalty_bridge_door_finish_url( array $connection, string $nonce, int $user_id, int $now, bool $may_connect ): string {
	$signed = loyalty_bridge_sign(
		$connection['key'],
		LOYALTY_BRIDGE_PURPOSE_DOOR,
		array(
			'purpose'    => 'merchant-door',
			'store'      => $connection['store'],
			'keyId'      => $connection['key_id'],
			'nonce'      => $nonce,
			'user'       => $user_id,
			// Only who may connect the plugin gets connection codes on the loyalty program's page: a code is the key.
			'mayConnect' => $may_connect,
			'iat'        => $now,
		)
	);
	return $connection['bridge_url'] . '/woocommerce/plugin-door/finish?payload=' . $signed['payload'] . '&sig=' . $signed['sig'];
}

/**
 * admin-post.php?action=loyalty_bridge_door&nonce=…, for a signed-in user: signs and redirects to the bridge, or
 * refuses with wp_die(). The caller ends the request.
 */
function loyalty_bridge_door_respond(): void {
	if ( ! current_user_can( 'manage_woocommerce' ) ) {
		// WordPress's own words for a page a user may not open.
		wp_die( esc_html__( 'Sorry, you are not allowed to access this page.' ), '', array( 'response' => 403 ) );
	}
	$connection = loyalty_bridge_connection();
	if ( null === $connection ) {
		wp_die( esc_html__( 'This store is not connected to a loyalty program. Connect it in WooCommerce › Loyalty points.', 'loyalty-bridge' ), '', array( 'response' => 409 ) );
	}
	$nonce = isset( $_GET['nonce'] ) && is_string( $_GET['nonce'] ) ? wp_unslash( $_GET['nonce'] ) : ''; // phpcs:ignore WordPress.Security -- the bridge's nonce, checked by its shape; not a WordPress nonce.
	// The bridge's door nonce is 32 random bytes in base64url: 43 characters, nothing else.
	if ( 1 !== preg_match( '/^[A-Za-z0-9_-]{43}$/', $nonce ) ) {
		wp_die( esc_html__( 'This link is incomplete. Open your loyalty program again from WooCommerce › Loyalty points.', 'loyalty-bridge' ), '', array( 'response' => 400 ) );
	}
	nocache_headers();
	// wp_redirect, not wp_safe_redirect: the bridge is another host by design, and the address comes only from the
	// connection the merchant made (the nonce is checked above and is URL-safe), never from the request.
	wp_redirect( loyalty_bridge_door_finish_url( $connection, $nonce, get_current_user_id(), time(), loyalty_bridge_may_connect() ) ); // phpcs:ignore WordPress.Security.SafeRedirect
}

add_action(
	'admin_post_loyalty_bridge_door',
	static function (): void {
		loyalty_bridge_door_respond();
		exit;
	}
);

// A merchant whose WordPress session has ended signs in and comes back with the same nonce (valid 5 minutes).
add_action( 'admin_post_nopriv_loyalty_bridge_door', 'auth_redirect' );

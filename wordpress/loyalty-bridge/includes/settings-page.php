<?php
/**
 * WooCommerce › Loyalty points: connect with a pasted code, see what the store is connected to, disconnect, and
 * the menu entry that opens the loyalty program's page through the door (door.php).
 *
 * Whoever manages WooCommerce sees the page and opens the loyalty program. Connecting decides which server's script
 * runs on every page of the site, as the site's own: only a user who manages the site (manage_options) and may put a
 * script in its pages (unfiltered_html) connects. A shop manager has neither; a site administrator of a multisite
 * network has no unfiltered_html (WordPress keeps it for network administrators, as a network in subdirectories is
 * one origin: a site's script would run in the network administrator's pages). Disconnecting only takes the script
 * away: manage_options is enough.
 *
 * @package LoyaltyBridge
 */

declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

const LOYALTY_BRIDGE_PAGE = 'loyalty-bridge';
/** The menu entry that opens the loyalty program: a page of ours that redirects, never the bridge's URL as a slug. */
const LOYALTY_BRIDGE_OPEN_PAGE = 'loyalty-bridge-open';
const LOYALTY_BRIDGE_CONNECT_CAPABILITY = 'manage_options';

/** Whether the current user may connect the site, so putting the bridge's script on its pages (see above). */
function loyalty_bridge_may_connect(): bool {
	return current_user_can( LOYALTY_BRIDGE_CONNECT_CAPABILITY ) && current_user_can( 'unfiltered_html' );
}

function loyalty_bridge_add_settings_page(): void {
	// Under WooCommerce's menu; under Settings while WooCommerce is off, so the merchant can still disconnect.
	$parent = class_exists( 'WooCommerce' ) ? 'woocommerce' : 'options-general.php';
	$hook   = add_submenu_page(
		$parent,
		__( 'Loyalty points', 'loyalty-bridge' ),
		__( 'Loyalty points', 'loyalty-bridge' ),
		'manage_woocommerce',
		LOYALTY_BRIDGE_PAGE,
		'loyalty_bridge_render_settings_page'
	);
	if ( is_string( $hook ) && '' !== $hook ) {
		add_action( 'load-' . $hook, 'loyalty_bridge_on_settings_load' );
	}
	if ( null !== loyalty_bridge_connection() ) {
		// WordPress prints a slug that is no page of a plugin's raw in the menu's href: so a fixed slug, whose page
		// redirects before anything is drawn.
		$open = add_submenu_page(
			$parent,
			__( 'Open your loyalty program', 'loyalty-bridge' ),
			__( 'Open your loyalty program', 'loyalty-bridge' ),
			'manage_woocommerce',
			LOYALTY_BRIDGE_OPEN_PAGE,
			'__return_null'
		);
		if ( is_string( $open ) && '' !== $open ) {
			add_action( 'load-' . $open, 'loyalty_bridge_open_door' );
		}
	}
}
add_action( 'admin_menu', 'loyalty_bridge_add_settings_page', 60 );

/**
 * What a POST to the settings page does. Returns where to send the browser after a change, or the words of a refusal.
 *
 * @param array<string, mixed> $post The unslashed form.
 * @return array{redirect: string}|array{error: string}|null Null when nothing was asked.
 */
function loyalty_bridge_handle_settings_post( array $post ): ?array {
	$action = isset( $post['loyalty_bridge_action'] ) && is_string( $post['loyalty_bridge_action'] ) ? $post['loyalty_bridge_action'] : '';
	if ( 'connect' !== $action && 'disconnect' !== $action ) {
		return null;
	}
	if ( ! current_user_can( LOYALTY_BRIDGE_CONNECT_CAPABILITY ) || ( 'connect' === $action && ! loyalty_bridge_may_connect() ) ) {
		wp_die( esc_html__( 'Sorry, you are not allowed to access this page.' ), '', array( 'response' => 403 ) );
	}
	check_admin_referer( 'loyalty_bridge_' . $action );
	if ( 'disconnect' === $action ) {
		loyalty_bridge_disconnect();
		return array( 'redirect' => add_query_arg( 'loyalty_bridge', 'disconnected', menu_page_url( LOYALTY_BRIDGE_PAGE, false ) ) );
	}
	$code   = isset( $post['connection_code'] ) && is_string( $post['connection_code'] ) ? $post['connection_code'] : '';
	$result = loyalty_bridge_connect( $code );
	if ( ! $result['ok'] ) {
		return array( 'error' => $result['error'] );
	}
	return array( 'redirect' => add_query_arg( 'loyalty_bridge', 'connected', menu_page_url( LOYALTY_BRIDGE_PAGE, false ) ) );
}

/** The words of the last refusal, kept between handling the form and drawing the page in one request. */
function loyalty_bridge_settings_error( ?string $set = null ): ?string {
	static $error = null;
	if ( null !== $set ) {
		$error = $set;
	}
	return $error;
}

function loyalty_bridge_on_settings_load(): void {
	if ( 'POST' !== ( $_SERVER['REQUEST_METHOD'] ?? '' ) ) {
		return;
	}
	$outcome = loyalty_bridge_handle_settings_post( wp_unslash( $_POST ) ); // phpcs:ignore WordPress.Security.NonceVerification -- checked by check_admin_referer() inside.
	if ( isset( $outcome['redirect'] ) ) {
		// Post, then redirect: reloading the page must not send the code again.
		wp_safe_redirect( $outcome['redirect'] );
		exit;
	}
	if ( isset( $outcome['error'] ) ) {
		loyalty_bridge_settings_error( $outcome['error'] );
	}
}

/**
 * The page's markup, everything escaped. Disconnect only for whoever may disconnect, Connect for whoever may connect.
 *
 * @param array{bridge_url: string, store: string, key_id: string, key: string}|null $connection
 */
function loyalty_bridge_settings_page_html( ?array $connection, ?string $error, string $notice, bool $may_disconnect, bool $may_connect ): string {
	$html = '<div class="wrap"><h1>' . esc_html__( 'Loyalty points', 'loyalty-bridge' ) . '</h1>';
	if ( null !== $error ) {
		$html .= '<div class="notice notice-error"><p>' . esc_html( $error ) . '</p></div>';
	} elseif ( 'connected' === $notice && null !== $connection ) {
		$html .= '<div class="notice notice-success"><p>' . esc_html__( 'Connected. Your customers see their points here once "Show customers their points in the store" is on in your loyalty program (Open your loyalty program, Set up).', 'loyalty-bridge' ) . '</p></div>';
	} elseif ( 'disconnected' === $notice ) {
		$html .= '<div class="notice notice-success"><p>' . esc_html__( 'Disconnected. The plugin no longer signs anything for your loyalty program.', 'loyalty-bridge' ) . '</p></div>';
	}
	$action = esc_url( menu_page_url( LOYALTY_BRIDGE_PAGE, false ) );
	if ( null !== $connection ) {
		$bridge = (string) wp_parse_url( $connection['bridge_url'], PHP_URL_HOST );
		$html  .= '<p>' . sprintf(
			/* translators: %1$s: the loyalty program's host name, %2$s: the store's name there */
			esc_html__( 'Connected to %1$s as store %2$s.', 'loyalty-bridge' ),
			'<strong>' . esc_html( $bridge ) . '</strong>',
			'<strong>' . esc_html( $connection['store'] ) . '</strong>'
		) . '</p>';
		$html .= '<p><a class="button button-primary" href="' . esc_url( loyalty_bridge_door_entry_url( $connection ) ) . '">'
			. esc_html__( 'Open your loyalty program', 'loyalty-bridge' ) . '</a></p>';
	}
	if ( ! $may_disconnect ) {
		return $html . '<p>' . esc_html__( 'Only an administrator of this site can connect it to a loyalty program or disconnect it.', 'loyalty-bridge' ) . '</p></div>';
	}
	if ( null === $connection && ! $may_connect ) {
		return $html . '<p>' . esc_html__( 'Only a user who may add scripts to this site\'s pages (on a multisite network, a network administrator) can connect it to a loyalty program.', 'loyalty-bridge' ) . '</p></div>';
	}
	if ( null !== $connection ) {
		$html .= '<form method="post" action="' . $action . '">'
			. wp_nonce_field( 'loyalty_bridge_disconnect', '_wpnonce', true, false )
			. '<input type="hidden" name="loyalty_bridge_action" value="disconnect">'
			. '<p>' . esc_html__( 'Disconnecting removes the store\'s key from this site. The points panel and the launcher leave your store.', 'loyalty-bridge' ) . '</p>'
			. '<p><button type="submit" class="button">' . esc_html__( 'Disconnect', 'loyalty-bridge' ) . '</button></p></form>';
	} else {
		$html .= '<p>' . esc_html__( 'On your loyalty program\'s page (Set up, "In your store"), ask for a connection code and paste it here. A code works once, for 15 minutes.', 'loyalty-bridge' ) . '</p>';
		$html .= '<form method="post" action="' . $action . '">'
			. wp_nonce_field( 'loyalty_bridge_connect', '_wpnonce', true, false )
			. '<input type="hidden" name="loyalty_bridge_action" value="connect">'
			. '<p><label for="loyalty-bridge-code">' . esc_html__( 'Connection code', 'loyalty-bridge' ) . '</label><br>'
			. '<input type="text" id="loyalty-bridge-code" name="connection_code" class="large-text code" autocomplete="off" spellcheck="false" required></p>'
			. '<p><button type="submit" class="button button-primary">' . esc_html__( 'Connect', 'loyalty-bridge' ) . '</button></p></form>';
	}
	return $html . '</div>';
}

function loyalty_bridge_render_settings_page(): void {
	if ( ! current_user_can( 'manage_woocommerce' ) ) {
		return;
	}
	$notice = isset( $_GET['loyalty_bridge'] ) && is_string( $_GET['loyalty_bridge'] ) ? sanitize_key( wp_unslash( $_GET['loyalty_bridge'] ) ) : ''; // phpcs:ignore WordPress.Security.NonceVerification -- only picks a message.
	echo loyalty_bridge_settings_page_html( loyalty_bridge_connection(), loyalty_bridge_settings_error(), $notice, current_user_can( LOYALTY_BRIDGE_CONNECT_CAPABILITY ), loyalty_bridge_may_connect() ); // phpcs:ignore WordPress.Security.EscapeOutput -- escaped where it is built.
}

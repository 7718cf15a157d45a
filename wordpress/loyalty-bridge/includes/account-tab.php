<?php
/**
 * The "Points" tab in WooCommerce's My Account, on its own endpoint (/my-account/points/), and the rewrite rules
 * that endpoint needs, rebuilt when the plugin is turned on or off.
 *
 * @package LoyaltyBridge
 */

declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

const LOYALTY_BRIDGE_ENDPOINT = 'points';

function loyalty_bridge_add_endpoint(): void {
	add_rewrite_endpoint( LOYALTY_BRIDGE_ENDPOINT, EP_ROOT | EP_PAGES );
}
add_action( 'init', 'loyalty_bridge_add_endpoint' );

/**
 * The tab, before "Log out" when there is one.
 *
 * @param array<string, string> $items
 * @return array<string, string>
 */
function loyalty_bridge_account_menu_items( array $items ): array {
	$tab = array( LOYALTY_BRIDGE_ENDPOINT => __( 'Points', 'loyalty-bridge' ) );
	if ( ! isset( $items['customer-logout'] ) ) {
		return $items + $tab;
	}
	$logout = array( 'customer-logout' => $items['customer-logout'] );
	unset( $items['customer-logout'] );
	return $items + $tab + $logout;
}
add_filter( 'woocommerce_account_menu_items', 'loyalty_bridge_account_menu_items' );

function loyalty_bridge_account_points_content(): void {
	echo loyalty_bridge_panel_markup(); // phpcs:ignore WordPress.Security.EscapeOutput -- fixed markup.
}
add_action( 'woocommerce_account_' . LOYALTY_BRIDGE_ENDPOINT . '_endpoint', 'loyalty_bridge_account_points_content' );

// WooCommerce titles its own endpoints' pages; this gives the tab's page the same title as the tab.
add_filter(
	'woocommerce_get_query_vars',
	static function ( array $vars ): array {
		$vars[ LOYALTY_BRIDGE_ENDPOINT ] = LOYALTY_BRIDGE_ENDPOINT;
		return $vars;
	}
);
add_filter(
	'woocommerce_endpoint_' . LOYALTY_BRIDGE_ENDPOINT . '_title',
	static fn (): string => __( 'Points', 'loyalty-bridge' )
);

function loyalty_bridge_activate(): void {
	loyalty_bridge_add_endpoint();
	flush_rewrite_rules();
}

function loyalty_bridge_deactivate(): void {
	// init already added the endpoint in this request: take it out first, or the flush would keep its rules.
	global $wp_rewrite;
	if ( isset( $wp_rewrite->endpoints ) && is_array( $wp_rewrite->endpoints ) ) {
		$wp_rewrite->endpoints = array_values(
			array_filter( $wp_rewrite->endpoints, static fn ( $endpoint ): bool => LOYALTY_BRIDGE_ENDPOINT !== ( $endpoint[1] ?? null ) )
		);
	}
	flush_rewrite_rules();
}

<?php
/**
 * The bridge's widget on every storefront page of a connected store, and where it finds the identity route and a
 * REST nonce (docs/wordpress-plugin.md §4). Nothing here names the customer: the page can be cached.
 *
 * @package LoyaltyBridge
 */

declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

const LOYALTY_BRIDGE_WIDGET_HANDLE = 'loyalty-bridge-widget';

function loyalty_bridge_widget_url( array $connection ): string {
	return $connection['bridge_url'] . '/woocommerce/storefront/widget.js?store=' . rawurlencode( $connection['store'] );
}

function loyalty_bridge_enqueue_widget(): void {
	$connection = loyalty_bridge_connection();
	if ( null === $connection ) {
		return;
	}
	// Version null: the bridge versions its own widget, and a ?ver= would change its URL for nothing.
	wp_enqueue_script(
		LOYALTY_BRIDGE_WIDGET_HANDLE,
		loyalty_bridge_widget_url( $connection ),
		array(),
		null,
		array(
			'strategy'  => 'defer',
			'in_footer' => true,
		)
	);
	// WordPress before 6.3 reads the fifth argument as "in footer" and knows no strategy: add defer to the tag.
	if ( version_compare( (string) get_bloginfo( 'version' ), '6.3', '<' ) ) {
		add_filter( 'script_loader_tag', 'loyalty_bridge_defer_on_old_wordpress', 10, 2 );
	}
}
add_action( 'wp_enqueue_scripts', 'loyalty_bridge_enqueue_widget' );

function loyalty_bridge_defer_on_old_wordpress( string $tag, string $handle ): string {
	if ( LOYALTY_BRIDGE_WIDGET_HANDLE !== $handle || str_contains( $tag, ' defer' ) ) {
		return $tag;
	}
	return str_replace( '<script ', '<script defer ', $tag );
}

/**
 * The placeholder the widget reads its settings from. The nonce may be stale where a page cache kept the page (a
 * guest's copy, or one older than the nonce's day): the widget then asks WordPress's own admin-ajax action
 * rest-nonce (wp_ajax_rest_nonce, for signed-in users) for a fresh one, as wp.apiFetch's nonce middleware does.
 */
function loyalty_bridge_config_markup(): string {
	return '<div id="loyalty-bridge-config" data-identity-url="' . esc_url( rest_url( 'loyalty-bridge/v1/identity' ) )
		. '" data-rest-nonce="' . esc_attr( wp_create_nonce( 'wp_rest' ) )
		. '" data-nonce-url="' . esc_url( admin_url( 'admin-ajax.php?action=rest-nonce' ) )
		. '" data-proof-url="' . esc_url( rest_url( 'loyalty-bridge/v1/email-proof' ) ) . '" hidden></div>';
}

function loyalty_bridge_print_config(): void {
	if ( null === loyalty_bridge_connection() ) {
		return;
	}
	echo loyalty_bridge_config_markup(); // phpcs:ignore WordPress.Security.EscapeOutput -- escaped where it is built.
}
// Before footer scripts (priority 20); the widget is deferred, so it finds the element wherever it is.
add_action( 'wp_footer', 'loyalty_bridge_print_config', 5 );

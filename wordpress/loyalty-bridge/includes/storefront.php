<?php
/**
 * The bridge's widget on every storefront page of a connected store, and what it needs to know of this site
 * (docs/wordpress-plugin.md §4). Nothing here names the customer: the page can be cached.
 *
 * The widget's settings ride on its own script tag, never on an element of the page: a post may carry any element
 * with an id and data-* attributes (WordPress's HTML filter keeps them), but no script tag, so only this plugin can
 * write them.
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
}
add_action( 'wp_enqueue_scripts', 'loyalty_bridge_enqueue_widget' );

/**
 * What the widget is told: where this site's front and wp-admin are (it builds the plugin's routes and WordPress's
 * admin-ajax rest-nonce from them itself, and calls nothing else), where a guest signs in (WooCommerce's My Account
 * page, which is not /my-account/ on a site in a directory, nor where WooCommerce named it in the site's language),
 * and a REST nonce. The nonce may be stale where a
 * page cache kept the page (a guest's copy, or one older than the nonce's day): the widget then asks admin-ajax's
 * rest-nonce (wp_ajax_rest_nonce, for signed-in users) for a fresh one, as wp.apiFetch's nonce middleware does.
 *
 * @return array<string, string> Attribute name => value, unescaped.
 */
function loyalty_bridge_widget_settings(): array {
	$settings = array(
		'data-site'       => home_url( '/' ),
		'data-admin'      => admin_url( '/' ),
		'data-rest-nonce' => wp_create_nonce( 'wp_rest' ),
	);
	$account  = function_exists( 'wc_get_page_permalink' ) ? (string) wc_get_page_permalink( 'myaccount' ) : '';
	if ( '' !== $account ) {
		$settings['data-account'] = $account;
	}
	return $settings;
}

/**
 * The widget's script tag with its settings as attributes, escaped; and defer, which WordPress before 6.3 does not
 * add itself (it reads enqueue's fifth argument as "in footer" only). Other scripts' tags are left as they are.
 */
function loyalty_bridge_widget_script_tag( string $tag, string $handle ): string {
	if ( LOYALTY_BRIDGE_WIDGET_HANDLE !== $handle ) {
		return $tag;
	}
	$attributes = '';
	foreach ( loyalty_bridge_widget_settings() as $name => $value ) {
		$escaped     = 'data-rest-nonce' === $name ? esc_attr( $value ) : esc_url( $value );
		$attributes .= ' ' . $name . '="' . $escaped . '"';
	}
	if ( ! preg_match( '/<script[^>]*\sdefer[\s>=]/', $tag ) ) {
		$attributes .= ' defer';
	}
	// Only the tag WordPress gave this handle's id: inline scripts another plugin adds around it stay untouched.
	$id = preg_quote( LOYALTY_BRIDGE_WIDGET_HANDLE . '-js', '/' );
	return (string) preg_replace( '/<script(?=[^>]*\sid=([\'"])' . $id . '\1)/', '<script' . $attributes, $tag, 1 );
}
add_filter( 'script_loader_tag', 'loyalty_bridge_widget_script_tag', 10, 2 );

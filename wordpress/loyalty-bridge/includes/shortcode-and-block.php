<?php
/**
 * The points panel on any page: the [loyalty_points] shortcode and the loyalty-bridge/points block. Both print the
 * element the widget fills with the launcher's panel; neither prints anything about the customer.
 *
 * @package LoyaltyBridge
 */

declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

function loyalty_bridge_panel_markup(): string {
	return '<div data-loyalty-points-panel></div>';
}

add_shortcode( 'loyalty_points', 'loyalty_bridge_panel_markup' );

function loyalty_bridge_register_block(): void {
	register_block_type( LOYALTY_BRIDGE_DIR . 'block', array( 'render_callback' => 'loyalty_bridge_panel_markup' ) );
}
add_action( 'init', 'loyalty_bridge_register_block' );

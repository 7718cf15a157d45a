<?php
/**
 * Plugin Name:          Loyalty Bridge
 * Description:          Shows WooCommerce customers their loyalty points and lets them spend them, through the Loyalty Bridge service.
 * Version:              0.1.0
 * Requires at least:    6.1
 * Requires PHP:         8.1
 * Requires Plugins:     woocommerce
 * WC requires at least: 7.1
 * WC tested up to:      10.9
 * Text Domain:          loyalty-bridge
 * License:              GPL-2.0-or-later
 * License URI:          https://www.gnu.org/licenses/gpl-2.0.html
 *
 * The plugin holds none of the bridge's logic: it connects once, signs what the bridge asks it to sign and prints
 * the bridge's widget. The protocol is docs/wordpress-plugin.md in the bridge's repository.
 *
 * @package LoyaltyBridge
 */

declare(strict_types=1);

defined( 'ABSPATH' ) || exit;

const LOYALTY_BRIDGE_VERSION = '0.1.0';
define( 'LOYALTY_BRIDGE_DIR', __DIR__ . '/' );

require_once LOYALTY_BRIDGE_DIR . 'includes/signing.php';
require_once LOYALTY_BRIDGE_DIR . 'includes/bridge-http.php';
require_once LOYALTY_BRIDGE_DIR . 'includes/connection.php';
require_once LOYALTY_BRIDGE_DIR . 'includes/door.php';
require_once LOYALTY_BRIDGE_DIR . 'includes/identity-route.php';
require_once LOYALTY_BRIDGE_DIR . 'includes/mail-claim.php';
require_once LOYALTY_BRIDGE_DIR . 'includes/email-proof.php';
require_once LOYALTY_BRIDGE_DIR . 'includes/storefront.php';
require_once LOYALTY_BRIDGE_DIR . 'includes/account-tab.php';
require_once LOYALTY_BRIDGE_DIR . 'includes/shortcode-and-block.php';
require_once LOYALTY_BRIDGE_DIR . 'includes/settings-page.php';

register_activation_hook( __FILE__, 'loyalty_bridge_activate' );
register_deactivation_hook( __FILE__, 'loyalty_bridge_deactivate' );

// The plugin touches no orders, so it works with WooCommerce's order tables (HPOS) as with posts.
add_action(
	'before_woocommerce_init',
	static function (): void {
		if ( class_exists( \Automattic\WooCommerce\Utilities\FeaturesUtil::class ) ) {
			\Automattic\WooCommerce\Utilities\FeaturesUtil::declare_compatibility( 'custom_order_tables', __FILE__, true );
		}
	}
);

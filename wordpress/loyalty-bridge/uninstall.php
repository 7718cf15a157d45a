<?php
/**
 * Removing the plugin forgets the connection: the store's plugin key must not outlive the plugin.
 *
 * @package LoyaltyBridge
 */

declare(strict_types=1);

defined( 'WP_UNINSTALL_PLUGIN' ) || exit;

delete_option( 'loyalty_bridge_connection' );

<?php
declare(strict_types=1);

use PHPUnit\Framework\TestCase;

/** What the plugin prints on the storefront: the widget's script, its settings, the panel, the My Account tab. */
final class StorefrontTest extends TestCase {
	protected function setUp(): void {
		WP::reset();
	}

	private function connect( string $store = 'shop.example' ): void {
		$connection                               = test_connection();
		$connection['store']                      = $store;
		WP::$options['loyalty_bridge_connection'] = array( 'value' => $connection, 'autoload' => false );
	}

	public function test_nothing_is_printed_for_a_store_that_is_not_connected(): void {
		loyalty_bridge_enqueue_widget();
		$this->expectOutputString( '' );
		loyalty_bridge_print_config();
		$this->assertSame( array(), WP::calls( 'wp_enqueue_script' ) );
	}

	public function test_the_widget_script_is_the_bridges_deferred_without_a_version(): void {
		$this->connect( 'shop.example/a"b<c>' );

		loyalty_bridge_enqueue_widget();

		[ [ $handle, $src, $deps, $ver, $args ] ] = WP::calls( 'wp_enqueue_script' );
		$this->assertSame( 'loyalty-bridge-widget', $handle );
		$this->assertSame( 'https://bridge.example/woocommerce/storefront/widget.js?store=shop.example%2Fa%22b%3Cc%3E', $src );
		$this->assertNull( $ver );
		$this->assertSame( array( 'strategy' => 'defer', 'in_footer' => true ), $args );
		$this->assertSame( array(), WP::calls( 'add_filter' ), 'WordPress 6.3+ defers it itself' );
	}

	public function test_on_wordpress_before_6_3_the_tag_gets_defer_itself(): void {
		$this->connect();
		WP::$version = '6.1.1';

		loyalty_bridge_enqueue_widget();

		$this->assertSame( array( array( 'script_loader_tag', 'loyalty_bridge_defer_on_old_wordpress', 10 ) ), WP::calls( 'add_filter' ) );
		$tag = "<script src='https://bridge.example/woocommerce/storefront/widget.js?store=shop.example' id='loyalty-bridge-widget-js'></script>\n";
		$this->assertSame( "<script defer src='https://bridge.example/woocommerce/storefront/widget.js?store=shop.example' id='loyalty-bridge-widget-js'></script>\n", loyalty_bridge_defer_on_old_wordpress( $tag, 'loyalty-bridge-widget' ) );
		$this->assertSame( "<script src='x.js'></script>", loyalty_bridge_defer_on_old_wordpress( "<script src='x.js'></script>", 'jquery' ), 'other scripts untouched' );
	}

	public function test_the_settings_element_holds_the_identity_route_and_a_rest_nonce_escaped(): void {
		$this->connect();
		WP::$user_id = 12;

		$this->expectOutputString( '<div id="loyalty-bridge-config" data-identity-url="https://shop.example/wp-json/loyalty-bridge/v1/identity" data-rest-nonce="nonce-for-wp_rest-12" data-nonce-url="https://shop.example/wp/wp-admin/admin-ajax.php?action=rest-nonce" data-proof-url="https://shop.example/wp-json/loyalty-bridge/v1/email-proof" hidden></div>' );
		loyalty_bridge_print_config();
	}

	public function test_the_settings_element_never_holds_a_token(): void {
		$this->connect();
		WP::$user_id = 12;
		$this->assertStringNotContainsString( 'token', loyalty_bridge_config_markup() );
		$this->assertSame( array(), WP::calls( 'nocache_headers' ) );
	}

	public function test_the_widget_and_its_settings_are_hooked_on_the_front_end(): void {
		$this->assertSame( 'loyalty_bridge_enqueue_widget', hooked( 'add_action', 'wp_enqueue_scripts' ) );
		$this->assertSame( 'loyalty_bridge_print_config', hooked( 'add_action', 'wp_footer' ) );
	}

	public function test_the_shortcode_and_the_block_print_the_panel(): void {
		$this->assertSame( 'loyalty_bridge_panel_markup', hooked( 'add_shortcode', 'loyalty_points' ) );
		$this->assertSame( '<div data-loyalty-points-panel></div>', loyalty_bridge_panel_markup() );

		loyalty_bridge_register_block();
		[ [ $path, $args ] ] = WP::calls( 'register_block_type' );
		$this->assertSame( 'loyalty_bridge_panel_markup', $args['render_callback'] );
		$block = json_decode( (string) file_get_contents( $path . '/block.json' ), true, 512, JSON_THROW_ON_ERROR );
		$this->assertSame( 'loyalty-bridge/points', $block['name'] );
		$this->assertFileExists( $path . '/editor.js' );
		$this->assertFileExists( $path . '/editor.asset.php', 'WordPress 6.1 refuses a block script without its asset file' );
	}

	public function test_my_account_has_a_points_tab_before_log_out(): void {
		$items = array( 'dashboard' => 'Dashboard', 'orders' => 'Orders', 'customer-logout' => 'Log out' );
		$this->assertSame(
			array( 'dashboard', 'orders', 'points', 'customer-logout' ),
			array_keys( loyalty_bridge_account_menu_items( $items ) )
		);
		$this->assertSame( 'Points', loyalty_bridge_account_menu_items( array() )['points'] );
		$this->assertSame( 'loyalty_bridge_account_menu_items', hooked( 'add_filter', 'woocommerce_account_menu_items' ) );
	}

	public function test_the_points_endpoint_prints_the_panel(): void {
		loyalty_bridge_add_endpoint();
		$this->assertSame( array( array( 'points', EP_ROOT | EP_PAGES ) ), WP::calls( 'add_rewrite_endpoint' ) );
		$this->assertSame( 'loyalty_bridge_account_points_content', hooked( 'add_action', 'woocommerce_account_points_endpoint' ) );
		$this->expectOutputString( '<div data-loyalty-points-panel></div>' );
		loyalty_bridge_account_points_content();
	}

	public function test_turning_the_plugin_on_and_off_rebuilds_the_rewrite_rules(): void {
		global $wp_rewrite;
		loyalty_bridge_activate();
		$this->assertCount( 1, WP::calls( 'add_rewrite_endpoint' ) );
		$this->assertCount( 1, WP::calls( 'flush_rewrite_rules' ) );

		$wp_rewrite = (object) array( 'endpoints' => array( array( EP_ROOT | EP_PAGES, 'points', 'points' ), array( EP_PAGES, 'orders', 'orders' ) ) );
		loyalty_bridge_deactivate();
		$this->assertSame( array( array( EP_PAGES, 'orders', 'orders' ) ), $wp_rewrite->endpoints );
		$this->assertCount( 2, WP::calls( 'flush_rewrite_rules' ) );
		$wp_rewrite = null;

		$hooks = array_column( WP::$load_calls['register_activation_hook'], 1 );
		$this->assertSame( array( 'loyalty_bridge_activate' ), $hooks );
		$this->assertSame( array( 'loyalty_bridge_deactivate' ), array_column( WP::$load_calls['register_deactivation_hook'], 1 ) );
	}
}

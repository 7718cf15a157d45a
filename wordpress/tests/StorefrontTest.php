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
	}

	public function test_the_widget_takes_its_settings_from_its_own_script_tag_deferred_on_wordpress_6_1(): void {
		$this->connect();
		WP::$user_id = 12;
		// WordPress 6.1's tag, with another plugin's inline script before it.
		$before = "<script id='loyalty-bridge-widget-js-before'>var x = 1;</script>\n";
		$tag    = "<script src='https://bridge.example/woocommerce/storefront/widget.js?store=shop.example' id='loyalty-bridge-widget-js'></script>\n";

		$this->assertSame(
			$before . "<script data-site=\"https://shop.example/\" data-admin=\"https://shop.example/wp/wp-admin/\" data-rest-nonce=\"nonce-for-wp_rest-12\" defer src='https://bridge.example/woocommerce/storefront/widget.js?store=shop.example' id='loyalty-bridge-widget-js'></script>\n",
			loyalty_bridge_widget_script_tag( $before . $tag, 'loyalty-bridge-widget' )
		);
		$this->assertStringNotContainsString( 'token', loyalty_bridge_widget_script_tag( $tag, 'loyalty-bridge-widget' ) );
		$this->assertSame( array(), WP::calls( 'nocache_headers' ) );
	}

	public function test_the_widget_is_told_where_my_account_is_on_a_site_in_a_directory_or_in_another_language(): void {
		$this->connect();
		WP::$account_page = 'https://shop.example/boutique/mon-compte/?a="b"';
		$tag              = "<script src='https://bridge.example/woocommerce/storefront/widget.js?store=shop.example' id='loyalty-bridge-widget-js'></script>";

		$this->assertStringContainsString( ' data-account="https://shop.example/boutique/mon-compte/?a=%22b%22" ', loyalty_bridge_widget_script_tag( $tag, 'loyalty-bridge-widget' ) );
		// None known: nothing, and the widget keeps its own /my-account/.
		WP::$account_page = '';
		$this->assertStringNotContainsString( 'data-account', loyalty_bridge_widget_script_tag( $tag, 'loyalty-bridge-widget' ) );
	}

	public function test_on_wordpress_6_3_and_later_the_tag_is_not_deferred_twice_and_other_tags_stay(): void {
		$this->connect();
		$tag = '<script src="https://bridge.example/woocommerce/storefront/widget.js?store=shop.example" id="loyalty-bridge-widget-js" defer data-wp-strategy="defer"></script>';
		$this->assertSame( 1, substr_count( loyalty_bridge_widget_script_tag( $tag, 'loyalty-bridge-widget' ), ' defer' ) );
		$this->assertStringContainsString( 'data-rest-nonce="nonce-for-wp_rest-0"', loyalty_bridge_widget_script_tag( $tag, 'loyalty-bridge-widget' ) );
		$this->assertSame( "<script src='x.js' id='jquery-js'></script>", loyalty_bridge_widget_script_tag( "<script src='x.js' id='jquery-js'></script>", 'jquery' ) );
	}

	public function test_the_settings_are_printed_on_no_element_a_post_could_also_print(): void {
		$this->assertSame( 'loyalty_bridge_enqueue_widget', hooked( 'add_action', 'wp_enqueue_scripts' ) );
		$this->assertSame( 'loyalty_bridge_widget_script_tag', hooked( 'add_filter', 'script_loader_tag' ) );
		$this->assertNull( hooked( 'add_action', 'wp_footer' ), 'no #loyalty-bridge-config' );
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

<?php
declare(strict_types=1);

use PHPUnit\Framework\TestCase;

/** WooCommerce › Loyalty points: connect, see the connection, open the loyalty program, disconnect. */
final class SettingsPageTest extends TestCase {
	private const SHOP_MANAGER = array( 'manage_woocommerce', 'edit_posts', 'list_users' );
	private string $code;

	protected function setUp(): void {
		WP::reset();
		WP::$user_id      = 1;
		WP::$capabilities = array( 'manage_options', 'manage_woocommerce', 'unfiltered_html' );
		$this->code       = 'lb1.' . loyalty_bridge_base64url_encode( 'https://bridge.example' ) . '.' . loyalty_bridge_base64url_encode( random_bytes( 32 ) );
	}

	private function connected(): void {
		WP::$options['loyalty_bridge_connection'] = array( 'value' => test_connection(), 'autoload' => false );
	}

	public function test_the_page_is_for_those_who_manage_woocommerce_and_the_door_appears_once_connected(): void {
		loyalty_bridge_add_settings_page();
		$this->assertSame( array( 'loyalty-bridge' ), array_column( WP::calls( 'add_submenu_page' ), 4 ) );
		$this->assertSame( array( 'manage_woocommerce' ), array_column( WP::calls( 'add_submenu_page' ), 3 ) );

		WP::reset();
		$this->connected();
		loyalty_bridge_add_settings_page();
		[ , $door ] = WP::calls( 'add_submenu_page' );
		$this->assertSame( 'Open your loyalty program', $door[2] );
		$this->assertSame( 'manage_woocommerce', $door[3] );
		// A slug of ours, whose page redirects: WordPress prints a slug that is no plugin page raw in the menu's href.
		$this->assertSame( 'loyalty-bridge-open', $door[4] );
		$this->assertContains( array( 'load-woocommerce_page_loyalty-bridge-open', 'loyalty_bridge_open_door', 10 ), WP::calls( 'add_action' ) );
	}

	public function test_a_bridge_address_with_markup_prints_no_markup_in_wp_admin(): void {
		// As an earlier version kept it from a pasted code: its path came from the code.
		$connection               = test_connection();
		$connection['bridge_url'] = "https://bridge.example/'><svg/onload=alert(1)>";
		WP::$options['loyalty_bridge_connection'] = array( 'value' => $connection, 'autoload' => false );

		loyalty_bridge_add_settings_page();
		$html = loyalty_bridge_settings_page_html( $connection, null, '', true, true );

		$this->assertNotContains( $connection['bridge_url'] . '/woocommerce/plugin-door?store=shop.example', array_column( WP::calls( 'add_submenu_page' ), 4 ) );
		$this->assertStringNotContainsString( '<svg', $html );
		$this->assertStringNotContainsString( "'>", $html );
	}

	public function test_a_shop_manager_can_neither_connect_nor_disconnect_even_with_the_forms_nonce(): void {
		$this->connected();
		WP::$capabilities = self::SHOP_MANAGER;
		foreach ( array( 'disconnect', 'connect' ) as $action ) {
			try {
				loyalty_bridge_handle_settings_post( array( 'loyalty_bridge_action' => $action, 'connection_code' => $this->code ) );
				$this->fail( "a shop manager could $action" );
			} catch ( WpDie $refusal ) {
				$this->assertSame( 403, $refusal->status );
			}
		}
		$this->assertSame( test_connection(), loyalty_bridge_connection() );
		$this->assertSame( array(), WP::calls( 'wp_safe_remote_post' ) );
	}

	/**
	 * A site administrator of a multisite network: manage_options on their site, but no unfiltered_html (WordPress keeps
	 * it for network administrators). Connecting puts the chosen server's script on every page of the site, which on a
	 * network in subdirectories is the network administrator's own origin: so only a user who may add a script to a
	 * page connects. Disconnecting only takes the script away: a site administrator may.
	 */
	public function test_a_site_administrator_without_unfiltered_html_cannot_connect_but_can_disconnect(): void {
		WP::$capabilities = array( 'manage_options', 'manage_woocommerce' );
		try {
			loyalty_bridge_handle_settings_post( array( 'loyalty_bridge_action' => 'connect', 'connection_code' => $this->code ) );
			$this->fail( 'a user without unfiltered_html connected the site to a bridge of their choosing' );
		} catch ( WpDie $refusal ) {
			$this->assertSame( 403, $refusal->status );
		}
		$this->assertSame( array(), WP::calls( 'wp_safe_remote_post' ) );
		$this->assertNull( loyalty_bridge_connection() );
		$page = loyalty_bridge_settings_page_html( null, null, '', true, false );
		$this->assertStringNotContainsString( 'name="connection_code"', $page );
		$this->assertStringContainsString( 'Only a user who may add scripts to this site', $page );

		$this->connected();
		$this->assertStringContainsString( '>Disconnect</button>', loyalty_bridge_settings_page_html( test_connection(), null, '', true, false ) );
		$outcome = loyalty_bridge_handle_settings_post( array( 'loyalty_bridge_action' => 'disconnect' ) );
		$this->assertStringEndsWith( 'loyalty_bridge=disconnected', $outcome['redirect'] );
		$this->assertNull( loyalty_bridge_connection() );
	}

	public function test_a_shop_manager_sees_the_connection_and_the_door_but_no_form(): void {
		$html = loyalty_bridge_settings_page_html( test_connection(), null, '', false, false );
		$this->assertStringContainsString( 'Connected to <strong>bridge.example</strong>', $html );
		$this->assertStringContainsString( '>Open your loyalty program</a>', $html );
		$this->assertStringContainsString( 'Only an administrator of this site can connect it to a loyalty program or disconnect it.', $html );
		$this->assertStringNotContainsString( '<form', $html );
		$this->assertStringNotContainsString( '<form', loyalty_bridge_settings_page_html( null, null, '', false, false ) );
	}

	public function test_connecting_checks_the_forms_nonce_and_comes_back_connected(): void {
		WP::$http_answers[] = array(
			'response' => array( 'code' => 200 ),
			'body'     => json_encode( array( 'store' => 'shop.example', 'keyId' => 'pk_abcDEF123_-x', 'key' => loyalty_bridge_base64url_encode( random_bytes( 32 ) ) ) ),
		);

		$outcome = loyalty_bridge_handle_settings_post( array( 'loyalty_bridge_action' => 'connect', 'connection_code' => $this->code ) );

		$this->assertSame( array( array( 'loyalty_bridge_connect' ) ), WP::calls( 'check_admin_referer' ) );
		$this->assertSame( array( 'redirect' => 'https://shop.example/wp-admin/admin.php?page=loyalty-bridge&loyalty_bridge=connected' ), $outcome );
		$this->assertNotNull( loyalty_bridge_connection() );
	}

	public function test_a_refused_code_comes_back_in_words(): void {
		WP::$http_answers[] = array( 'response' => array( 'code' => 400 ), 'body' => '{"error":"this code has expired: ask for a new one on your loyalty page"}' );

		$outcome = loyalty_bridge_handle_settings_post( array( 'loyalty_bridge_action' => 'connect', 'connection_code' => $this->code ) );

		$this->assertStringContainsString( 'this code has expired', $outcome['error'] );
		$this->assertNull( loyalty_bridge_connection() );
	}

	public function test_a_forged_form_changes_nothing(): void {
		$this->connected();
		WP::$referer_ok = false;
		try {
			loyalty_bridge_handle_settings_post( array( 'loyalty_bridge_action' => 'disconnect' ) );
			$this->fail( 'a form without the nonce disconnected the store' );
		} catch ( WpDie $refusal ) {
			$this->assertSame( 403, $refusal->status );
		}
		$this->assertSame( test_connection(), loyalty_bridge_connection() );
	}

	public function test_a_user_who_does_not_manage_woocommerce_cannot_connect(): void {
		WP::$capabilities = array( 'edit_posts' );
		$this->expectException( WpDie::class );
		try {
			loyalty_bridge_handle_settings_post( array( 'loyalty_bridge_action' => 'connect', 'connection_code' => $this->code ) );
		} finally {
			$this->assertSame( array(), WP::calls( 'wp_safe_remote_post' ) );
		}
	}

	public function test_disconnecting_checks_its_nonce_and_forgets_the_key(): void {
		$this->connected();

		$outcome = loyalty_bridge_handle_settings_post( array( 'loyalty_bridge_action' => 'disconnect' ) );

		$this->assertSame( array( array( 'loyalty_bridge_disconnect' ) ), WP::calls( 'check_admin_referer' ) );
		$this->assertStringEndsWith( 'loyalty_bridge=disconnected', $outcome['redirect'] );
		$this->assertNull( loyalty_bridge_connection() );
	}

	public function test_a_visit_without_a_form_does_nothing(): void {
		$this->assertNull( loyalty_bridge_handle_settings_post( array() ) );
		$this->assertSame( array(), WP::calls( 'check_admin_referer' ) );
	}

	public function test_a_connected_page_says_to_what_with_everything_escaped(): void {
		$connection          = test_connection();
		$connection['store'] = '<script>alert(1)</script>';

		$html = loyalty_bridge_settings_page_html( $connection, null, 'connected', true, true );

		$this->assertStringContainsString( 'Connected to <strong>bridge.example</strong> as store <strong>&lt;script&gt;alert(1)&lt;/script&gt;</strong>.', $html );
		$this->assertStringNotContainsString( '<script>', $html );
		$this->assertStringContainsString( 'href="https://bridge.example/woocommerce/plugin-door?store=%3Cscript%3Ealert%281%29%3C%2Fscript%3E">Open your loyalty program</a>', $html );
		$this->assertStringContainsString( 'value="nonce-for-loyalty_bridge_disconnect"', $html );
		$this->assertStringContainsString( '>Disconnect</button>', $html );
		$this->assertStringNotContainsString( $connection['key'], $html, 'the key is never shown' );
	}

	public function test_a_page_not_connected_asks_for_the_code(): void {
		$html = loyalty_bridge_settings_page_html( null, null, '', true, true );
		$this->assertStringContainsString( 'name="connection_code"', $html );
		$this->assertStringContainsString( 'value="nonce-for-loyalty_bridge_connect"', $html );
		$this->assertStringContainsString( '>Connect</button>', $html );
	}

	public function test_a_refusal_is_shown_escaped(): void {
		$html = loyalty_bridge_settings_page_html( null, 'Your loyalty program refused the code: <b>no</b>.', '', true, true );
		$this->assertStringContainsString( '<div class="notice notice-error"><p>Your loyalty program refused the code: &lt;b&gt;no&lt;/b&gt;.</p></div>', $html );
	}
}

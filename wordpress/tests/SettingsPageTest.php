<?php
declare(strict_types=1);

use PHPUnit\Framework\TestCase;

/** WooCommerce › Loyalty points: connect, see the connection, open the loyalty program, disconnect. */
final class SettingsPageTest extends TestCase {
	private string $code;

	protected function setUp(): void {
		WP::reset();
		WP::$user_id      = 1;
		WP::$capabilities = array( 'manage_woocommerce' );
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
		$this->assertSame( 'https://bridge.example/woocommerce/plugin-door?store=shop.example', $door[4] );
		$this->assertSame( 'manage_woocommerce', $door[3] );
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
		WP::$http_answers[] = array( 'response' => array( 'code' => 400 ), 'body' => '{"error":"this code has expired"}' );

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
			$this->assertSame( array(), WP::calls( 'wp_remote_post' ) );
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

		$html = loyalty_bridge_settings_page_html( $connection, null, 'connected' );

		$this->assertStringContainsString( 'Connected to <strong>bridge.example</strong> as store <strong>&lt;script&gt;alert(1)&lt;/script&gt;</strong>.', $html );
		$this->assertStringNotContainsString( '<script>', $html );
		$this->assertStringContainsString( 'href="https://bridge.example/woocommerce/plugin-door?store=%3Cscript%3Ealert%281%29%3C%2Fscript%3E">Open your loyalty program</a>', $html );
		$this->assertStringContainsString( 'value="nonce-for-loyalty_bridge_disconnect"', $html );
		$this->assertStringContainsString( '>Disconnect</button>', $html );
		$this->assertStringNotContainsString( $connection['key'], $html, 'the key is never shown' );
	}

	public function test_a_page_not_connected_asks_for_the_code(): void {
		$html = loyalty_bridge_settings_page_html( null, null, '' );
		$this->assertStringContainsString( 'name="connection_code"', $html );
		$this->assertStringContainsString( 'value="nonce-for-loyalty_bridge_connect"', $html );
		$this->assertStringContainsString( '>Connect</button>', $html );
	}

	public function test_a_refusal_is_shown_escaped(): void {
		$html = loyalty_bridge_settings_page_html( null, 'Your loyalty program refused the code: <b>no</b>.', '' );
		$this->assertStringContainsString( '<div class="notice notice-error"><p>Your loyalty program refused the code: &lt;b&gt;no&lt;/b&gt;.</p></div>', $html );
	}
}

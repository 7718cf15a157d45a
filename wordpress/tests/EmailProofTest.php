<?php
declare(strict_types=1);

use PHPUnit\Framework\TestCase;

/** The customer proves their account's e-mail with a one-time link, before the bridge takes it as who they are. */
final class EmailProofTest extends TestCase {
	protected function setUp(): void {
		WP::reset();
		WP::$user_id         = 12;
		WP::$user_emails[12] = 'Ada@Example.com';
	}

	/** The secret in the link the last mail carried. */
	private function mailed_secret(): string {
		$mails = WP::calls( 'wp_mail' );
		$this->assertNotEmpty( $mails );
		[ , , $message ] = end( $mails );
		$this->assertSame( 1, preg_match( '/loyalty_bridge_proof=([\w-]{43})&user=12/', $message, $found ) );
		return $found[1];
	}

	public function test_the_route_is_a_post_for_signed_in_users(): void {
		loyalty_bridge_register_email_proof_route();
		[ [ $namespace, $route, $args ] ] = WP::calls( 'register_rest_route' );
		$this->assertSame( array( 'loyalty-bridge/v1', '/email-proof', 'POST' ), array( $namespace, $route, $args['methods'] ) );
		$this->assertSame( 'loyalty_bridge_identity_permission', $args['permission_callback'] );
	}

	public function test_mails_a_link_to_the_account_email_and_keeps_only_its_seal(): void {
		$answer = loyalty_bridge_send_email_proof( new WP_REST_Request() );

		$this->assertInstanceOf( WP_REST_Response::class, $answer );
		$this->assertSame( 'We sent a link to a•••@example.com. Open it, then come back to this page.', $answer->data['message'] );
		[ [ $to, $subject ] ] = WP::calls( 'wp_mail' );
		$this->assertSame( 'Ada@Example.com', $to );
		$this->assertStringContainsString( 'Confirm your e-mail address', $subject );
		$secret = $this->mailed_secret();
		$kept   = WP::$user_meta[12]['loyalty_bridge_email_proof'];
		// An HMAC under the site's salt of the secret, the user, the address and the link's end: no one who can only
		// write the meta can make one.
		$this->assertSame( hash_hmac( 'sha256', "loyalty-bridge proof-link\0" . "12\0ada@example.com\0{$kept['expires']}\0$secret", wp_salt( 'auth' ) ), $kept['hash'] );
		$this->assertSame( 'ada@example.com', $kept['email'] );
		$this->assertStringNotContainsString( $secret, json_encode( WP::$user_meta ) );
	}

	public function test_the_link_proves_the_address_once(): void {
		loyalty_bridge_send_email_proof( new WP_REST_Request() );
		$secret = $this->mailed_secret();
		$user   = new WP_User( 12, 'Ada@Example.com' );
		$this->assertFalse( loyalty_bridge_email_proven( $user ) );

		$this->assertTrue( loyalty_bridge_prove_email( 12, $secret, time() ) );
		$this->assertTrue( loyalty_bridge_email_proven( $user ) );
		$this->assertFalse( loyalty_bridge_prove_email( 12, $secret, time() ), 'used once' );
	}

	public function test_a_wrong_secret_another_user_an_old_link_or_a_changed_address_prove_nothing(): void {
		loyalty_bridge_send_email_proof( new WP_REST_Request() );
		$secret = $this->mailed_secret();

		$this->assertFalse( loyalty_bridge_prove_email( 12, str_repeat( 'A', 43 ), time() ) );
		WP::$user_emails[13] = 'mallory@example.com';
		$this->assertFalse( loyalty_bridge_prove_email( 13, $secret, time() ) );
		$this->assertFalse( loyalty_bridge_prove_email( 12, $secret, time() + 3601 ) );
		// The address was changed after the link went (to someone else's): the link proves neither.
		WP::$user_emails[12] = 'victim@example.com';
		$this->assertFalse( loyalty_bridge_prove_email( 12, $secret, time() ) );
		$this->assertFalse( loyalty_bridge_email_proven( new WP_User( 12, 'victim@example.com' ) ) );
	}

	public function test_one_mail_a_minute(): void {
		loyalty_bridge_send_email_proof( new WP_REST_Request() );
		$again = loyalty_bridge_send_email_proof( new WP_REST_Request() );
		$this->assertInstanceOf( WP_Error::class, $again );
		$this->assertSame( 429, $again->get_error_data()['status'] );
		$this->assertCount( 1, WP::calls( 'wp_mail' ) );
	}

	public function test_a_mail_that_cannot_be_sent_is_said_and_leaves_no_link_waiting(): void {
		WP::$mail_fails = true;
		$answer         = loyalty_bridge_send_email_proof( new WP_REST_Request() );
		$this->assertInstanceOf( WP_Error::class, $answer );
		$this->assertSame( 503, $answer->get_error_data()['status'] );
		$this->assertArrayNotHasKey( 'loyalty_bridge_email_proof', WP::$user_meta[12] ?? array() );
		// Its minute is given back: asked again once the site can send, the mail goes.
		WP::$mail_fails = false;
		$this->assertInstanceOf( WP_REST_Response::class, loyalty_bridge_send_email_proof( new WP_REST_Request() ) );
	}

	public function test_the_minute_is_claimed_by_one_statement_the_database_decides(): void {
		global $wpdb;
		$now = 1_700_000_000;
		// Two presses at once, the first row not there yet: one insert makes it, the other finds it.
		$this->assertTrue( loyalty_bridge_claim_mail( 12, $now, 60 ) );
		$this->assertFalse( loyalty_bridge_claim_mail( 12, $now, 60 ) );
		$this->assertFalse( loyalty_bridge_claim_mail( 12, $now + 59, 60 ) );
		$this->assertTrue( loyalty_bridge_claim_mail( 13, $now, 60 ), 'another account has its own minute' );
		$this->assertStringStartsWith( 'INSERT IGNORE INTO wp_options', $wpdb->queries[0] );

		// A minute later, two presses both read the old time: of their updates, only the first finds it.
		$wpdb->before_next_update = static function () use ( $now ): void {
			loyalty_bridge_claim_mail( 12, $now + 61, 60 );
		};
		$this->assertFalse( loyalty_bridge_claim_mail( 12, $now + 61, 60 ), 'the press whose update came second' );
		$this->assertSame( (string) ( $now + 61 ), WP::$options['loyalty_bridge_mail_12']['value'], 'the first press claimed it' );
		$this->assertSame( 'no', WP::$options['loyalty_bridge_mail_12']['autoload'] );
	}

	public function test_an_address_proven_already_is_said_so_and_mails_nothing(): void {
		loyalty_bridge_keep_proven( 12, 'ada@example.com' );
		$answer            = loyalty_bridge_send_email_proof( new WP_REST_Request() );
		$this->assertTrue( $answer->data['proven'] );
		$this->assertCount( 0, WP::calls( 'wp_mail' ) );
	}
}

<?php
declare(strict_types=1);

use PHPUnit\Framework\TestCase;

/**
 * An adversary's tries at the e-mail proof (email-proof.php): proving an address they do not receive mail at,
 * flooding someone's inbox, and learning from the link's answers whether an account exists.
 */
final class EmailProofAbuseTest extends TestCase {
	private const CONFIRMED = 'https://shop.example/?loyalty_bridge_proof=confirmed';
	private const EXPIRED   = 'https://shop.example/?loyalty_bridge_proof=expired';

	protected function setUp(): void {
		WP::reset();
		WP::$user_id         = 12;
		WP::$user_emails[12] = 'Ada@Example.com';
	}

	/** Sends a link as the signed-in user, and answers the secret it carried. */
	private function send(): string {
		$answer = loyalty_bridge_send_email_proof( new WP_REST_Request() );
		$this->assertInstanceOf( WP_REST_Response::class, $answer );
		$mails           = WP::calls( 'wp_mail' );
		[ , , $message ] = end( $mails );
		$this->assertSame( 1, preg_match( '/loyalty_bridge_proof=([\w-]{43})&user=(\d+)/', $message, $found ) );
		return $found[1];
	}

	/** The account's last mail as older than the one-a-minute interval. */
	private function a_minute_passes( int $user_id ): void {
		WP::$options[ 'loyalty_bridge_mail_' . $user_id ]['value'] = (string) ( time() - 61 );
	}

	private function proven( int $user_id ): bool {
		return loyalty_bridge_email_proven( new WP_User( $user_id, WP::$user_emails[ $user_id ] ) );
	}

	/**
	 * The link opened: by a client signed in as no one (a mailbox's link scanner, another browser) unless `$signed_in`
	 * says who. Its answer, or the page it shows.
	 */
	private function opened( string $secret, string $user, int $signed_in = 0 ): string {
		try {
			return (string) loyalty_bridge_email_proof_answer( array( 'loyalty_bridge_proof' => $secret, 'user' => $user ), $signed_in, time() );
		} catch ( WpDie $page ) {
			return 'page ' . $page->status . ': ' . $page->getMessage();
		}
	}

	/** The link opened where its own account is signed in. */
	private function confirmed( string $secret, string $user ): string {
		return $this->opened( $secret, $user, (int) $user );
	}

	public function test_guessed_or_altered_secrets_prove_nothing(): void {
		$secret = $this->send();
		$tries  = array(
			str_repeat( 'A', 43 ),
			strtoupper( $secret ) === $secret ? strtolower( $secret ) : strtoupper( $secret ),
			substr( $secret, 0, 42 ),
			$secret . 'A',
			hash( 'sha256', $secret ),
			(string) WP::$user_meta[12]['loyalty_bridge_email_proof']['hash'],
			'',
		);
		foreach ( $tries as $try ) {
			$this->assertSame( self::EXPIRED, $this->confirmed( $try, '12' ), $try );
		}
		$this->assertFalse( $this->proven( 12 ) );
		// None of them spent the real link.
		$this->assertSame( self::CONFIRMED, $this->confirmed( $secret, '12' ) );
	}

	public function test_a_link_is_for_its_user_and_its_last_mail_only(): void {
		$first = $this->send();
		WP::$user_emails[13] = 'mallory@example.com';
		WP::$user_meta[13]   = WP::$user_meta[12];
		$this->assertSame( self::EXPIRED, $this->confirmed( $first, '13' ), 'a copy of the pending link on another user proves only with its own secret' );
		unset( WP::$user_meta[13] );
		$this->assertSame( self::EXPIRED, $this->confirmed( $first, '13' ) );

		// A new link (a minute later) replaces the one before: the first, found later in a mailbox, proves nothing.
		$this->a_minute_passes( 12 );
		$second = $this->send();
		$this->assertSame( self::EXPIRED, $this->confirmed( $first, '12' ) );
		$this->assertSame( self::CONFIRMED, $this->confirmed( $second, '12' ) );
		$this->assertSame( self::EXPIRED, $this->confirmed( $second, '12' ), 'used once' );
	}

	public function test_an_address_put_in_after_the_link_went_or_after_it_was_proven_is_not_proven(): void {
		$secret = $this->send();
		// Sent to her own address, then the account's address changed to a guest buyer's: the link proves neither.
		WP::$user_emails[12] = 'victim@example.com';
		$this->assertSame( self::EXPIRED, $this->confirmed( $secret, '12' ) );
		$this->assertFalse( $this->proven( 12 ) );

		WP::$user_emails[12] = 'Ada@Example.com';
		$this->a_minute_passes( 12 );
		$this->assertSame( self::CONFIRMED, $this->confirmed( $this->send(), '12' ) );
		$this->assertTrue( $this->proven( 12 ) );
		WP::$user_emails[12] = 'victim@example.com';
		$this->assertFalse( $this->proven( 12 ) );
		$token = loyalty_bridge_identity_payload( test_connection(), new WP_User( 12, 'victim@example.com' ), time() );
		$this->assertFalse( $token['emailProven'] );
	}

	public function test_only_case_and_surrounding_space_of_the_proven_address_are_the_same_address(): void {
		loyalty_bridge_keep_proven( 12, 'Ada@Example.com' );
		foreach ( array( 'ADA@EXAMPLE.COM', ' ada@example.com ', "ada@example.com\n" ) as $same ) {
			$this->assertTrue( loyalty_bridge_email_proven( new WP_User( 12, $same ) ), $same );
			// The token carries the address trimmed: the bridge reads the one that was proven.
			$token = loyalty_bridge_identity_payload( test_connection(), new WP_User( 12, $same ), time() );
			$this->assertSame( 'ada@example.com', strtolower( (string) $token['email'] ) );
		}
		foreach ( array( 'ada@example.com.evil', 'ada+x@example.com', 'ada@exampIe.com', 'ädA@example.com', 'a da@example.com', '' ) as $other ) {
			$this->assertFalse( loyalty_bridge_email_proven( new WP_User( 12, $other ) ), $other );
		}
		// Nothing proven: an empty address is not "proven" by an empty meta.
		WP::$user_meta[12] = array( 'loyalty_bridge_proven_email' => '' );
		$this->assertFalse( loyalty_bridge_email_proven( new WP_User( 12, '' ) ) );
	}

	/**
	 * Someone who can write a customer's user meta without receiving their mail: a shop manager, through WooCommerce's
	 * REST API (PUT /wc/v3/customers/<id> saves any meta_data on a customer, and its e-mail and password too), or a
	 * plugin that saves the meta keys a form sends. What the plugin keeps proves only what the plugin itself wrote.
	 */
	public function test_a_proof_written_into_user_meta_by_someone_else_proves_nothing(): void {
		// The proven address written as the plugin kept it: the address itself.
		WP::$user_emails[12] = 'vera@example.com';
		WP::$user_meta[12]   = array( 'loyalty_bridge_proven_email' => 'vera@example.com' );
		$this->assertFalse( $this->proven( 12 ), 'a proven address written into the meta' );

		// A waiting link written with a secret of the writer's choosing, in the shape the plugin keeps it.
		$chosen            = str_repeat( 'M', 43 );
		WP::$user_meta[12] = array(
			'loyalty_bridge_email_proof' => array(
				'hash'    => hash( 'sha256', $chosen ),
				'email'   => 'vera@example.com',
				'expires' => time() + 3600,
			),
		);
		$this->assertSame( self::EXPIRED, $this->confirmed( $chosen, '12' ), 'a waiting link written into the meta' );
		$this->assertFalse( $this->proven( 12 ) );

		// The writer's own account's link (mailed to the writer, so its secret is known), copied onto account 12 with
		// its address changed to Vera's.
		WP::$user_id         = 13;
		WP::$user_emails[13] = 'mallory@example.com';
		$own                 = $this->send();
		$copied              = WP::$user_meta[13]['loyalty_bridge_email_proof'];
		$copied['email']     = 'vera@example.com';
		WP::$user_meta[12]   = array( 'loyalty_bridge_email_proof' => $copied );
		$this->assertSame( self::EXPIRED, $this->confirmed( $own, '12' ), 'the writer\'s own link copied onto another account' );
		$this->assertFalse( $this->proven( 12 ) );

		// What the writer's own proven account keeps, copied onto account 12.
		$this->assertSame( self::CONFIRMED, $this->confirmed( $own, '13' ) );
		$this->assertTrue( $this->proven( 13 ) );
		WP::$user_meta[12] = array( 'loyalty_bridge_proven_email' => WP::$user_meta[13]['loyalty_bridge_proven_email'] );
		$this->assertFalse( $this->proven( 12 ), 'another account\'s proof copied' );
		$this->assertFalse( loyalty_bridge_identity_payload( test_connection(), new WP_User( 12, 'vera@example.com' ), time() )['emailProven'] );
	}

	public function test_swapping_the_account_address_between_presses_mails_no_more_than_once_a_minute(): void {
		$this->send();
		foreach ( array( 'victim@example.com', 'Ada@Example.com', 'victim@example.com' ) as $address ) {
			WP::$user_emails[12] = $address;
			$again               = loyalty_bridge_send_email_proof( new WP_REST_Request() );
			$this->assertInstanceOf( WP_Error::class, $again, $address );
			$this->assertSame( 429, $again->get_error_data()['status'] );
		}
		$this->assertCount( 1, WP::calls( 'wp_mail' ) );
	}

	public function test_a_link_scanner_or_another_browser_following_the_link_proves_nothing_until_its_account_signs_in(): void {
		// An account registered with a guest buyer's address at a company whose mail is scanned: the scanner fetches
		// the link as the mail arrives. Before, that alone proved the address for whoever registered it.
		$secret = $this->send();
		$page   = $this->opened( $secret, '12' );
		$this->assertStringStartsWith( 'page 200: ', $page );
		$this->assertStringContainsString( 'sign in to the account that asked for this link', $page );
		// Signed in, WordPress sends her back to the link.
		$back = rawurlencode( 'https://shop.example/?loyalty_bridge_proof=' . $secret . '&user=12' );
		$this->assertStringContainsString( 'href="https://shop.example/wp/wp-login.php?redirect_to=' . $back . '">Sign in to confirm</a>', $page );
		$this->assertFalse( $this->proven( 12 ) );
		$this->assertArrayHasKey( 'loyalty_bridge_email_proof', WP::$user_meta[12], 'the link still waits' );
		$this->assertSame( self::CONFIRMED, $this->confirmed( $secret, '12' ) );
		$this->assertTrue( $this->proven( 12 ) );
	}

	public function test_a_guest_buyer_whose_address_a_stranger_registered_cannot_hand_the_stranger_her_points(): void {
		// Mallory registers account 12 with the address of Vera, who bought as a guest, and asks for the link: it goes
		// to Vera, who opens it. Before, one "Confirm" button, naming no account, proved the address for Mallory.
		WP::$user_emails[12] = 'vera@example.com';
		$secret              = $this->send();
		$page                = $this->opened( $secret, '12' );
		$this->assertStringNotContainsString( '<form', $page );
		$this->assertStringNotContainsString( '<button', $page );
		$this->assertNull( loyalty_bridge_email_proof_answer( array(), 0, time() ), 'a form posted back is no proof' );
		// Vera signs in with an account of her own: refused.
		WP::$user_emails[14] = 'vera@example.com';
		$this->assertStringStartsWith( 'page 403: ', $this->opened( $secret, '12', 14 ) );
		$this->assertFalse( $this->proven( 12 ) );
	}

	public function test_opened_where_its_user_is_signed_in_the_link_is_taken_at_once(): void {
		$secret = $this->send();
		$this->assertSame( self::CONFIRMED, $this->opened( $secret, '12', 12 ) );
		$this->assertTrue( $this->proven( 12 ) );
	}

	public function test_someone_signed_in_to_another_account_cannot_confirm_the_link(): void {
		$secret              = $this->send();
		WP::$user_emails[13] = 'victim@example.com';
		$this->assertStringStartsWith( 'page 403: This link confirms the e-mail address of another account', $this->opened( $secret, '12', 13 ) );
		$this->assertFalse( $this->proven( 12 ) );
	}

	public function test_the_link_answers_the_same_whether_the_account_exists_or_the_secret_is_right(): void {
		$secret      = $this->send();
		$wrong       = str_repeat( 'B', 43 );
		$as_page_for = fn( string $page, string $s, string $u ) => str_replace( array( $s, rawurlencode( '&user=' . $u ) ), array( 'SECRET', 'USER' ), $page );
		$pages       = array(
			$as_page_for( $this->opened( $secret, '12' ), $secret, '12' ),
			$as_page_for( $this->opened( $wrong, '12' ), $wrong, '12' ),
			$as_page_for( $this->opened( $wrong, '999' ), $wrong, '999' ),
		);
		$this->assertCount( 1, array_unique( $pages ) );
		$this->assertStringNotContainsString( 'example.com"', $pages[0] );
		$this->assertStringNotContainsString( '@', $pages[0], 'no address on the page' );
		$this->assertSame( self::EXPIRED, $this->confirmed( $wrong, '12' ) );
	}

	public function test_a_link_of_another_shape_is_no_proof_and_no_error(): void {
		$this->send();
		$this->assertNull( loyalty_bridge_email_proof_answer( array( 'loyalty_bridge_proof' => array( 'x' ), 'user' => '12' ), 0, time() ) );
		$this->assertNull( loyalty_bridge_email_proof_answer( array( 'loyalty_bridge_proof' => 'confirmed' ), 12, time() ) );
		$this->assertSame( self::EXPIRED, $this->confirmed( '<script>', '12' ) );
		$this->assertFalse( $this->proven( 12 ) );
	}
}

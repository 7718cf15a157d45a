<?php
/**
 * A stand-in for WordPress's $wpdb, for the few statements the plugin sends on the options table itself
 * (mail-claim.php), kept in WP::$options as the table: INSERT IGNORE on the unique option_name, SELECT of one value,
 * UPDATE … WHERE option_value = (a compare-and-set), DELETE by name (and value) or LIKE. Each answers as MySQL does:
 * the number of rows it changed. A statement of any other shape fails the test.
 */

declare(strict_types=1);

final class FakeWpdb {
	public string $options = 'wp_options';
	/** @var list<string> Every statement, as prepared. */
	public array $queries = array();
	/** Runs (once) just before the next UPDATE: another request's statements landing between a read and a write. */
	public ?Closure $before_next_update = null;

	public function prepare( string $query, mixed ...$args ): string {
		$quoted = array_map( static fn ( $arg ): string => is_int( $arg ) ? (string) $arg : "'" . addslashes( (string) $arg ) . "'", $args );
		return vsprintf( str_replace( array( '%s', '%d' ), '%s', $query ), $quoted );
	}

	public function esc_like( string $text ): string {
		return addcslashes( $text, '_%\\' );
	}

	public function query( string $sql ): int {
		$this->queries[] = $sql;
		$v               = "'((?:[^'\\\\]|\\\\.)*)'";
		if ( preg_match( "/^INSERT IGNORE INTO wp_options \(option_name, option_value, autoload\) VALUES \($v, $v, 'no'\)$/", $sql, $m ) ) {
			[ $name, $value ] = array( stripslashes( $m[1] ), stripslashes( $m[2] ) );
			if ( array_key_exists( $name, WP::$options ) ) {
				return 0;
			}
			WP::$options[ $name ] = array( 'value' => $value, 'autoload' => 'no' );
			return 1;
		}
		if ( str_starts_with( $sql, 'UPDATE' ) && null !== $this->before_next_update ) {
			$between                  = $this->before_next_update;
			$this->before_next_update = null;
			$between();
		}
		if ( preg_match( "/^UPDATE wp_options SET option_value = $v WHERE option_name = $v AND option_value = $v$/", $sql, $m ) ) {
			[ $value, $name, $was ] = array( stripslashes( $m[1] ), stripslashes( $m[2] ), stripslashes( $m[3] ) );
			if ( ( WP::$options[ $name ]['value'] ?? null ) !== $was ) {
				return 0;
			}
			WP::$options[ $name ]['value'] = $value;
			return 1;
		}
		if ( preg_match( "/^DELETE FROM wp_options WHERE option_name = $v AND option_value = $v$/", $sql, $m ) ) {
			[ $name, $value ] = array( stripslashes( $m[1] ), stripslashes( $m[2] ) );
			if ( ( WP::$options[ $name ]['value'] ?? null ) !== $value ) {
				return 0;
			}
			unset( WP::$options[ $name ] );
			return 1;
		}
		if ( preg_match( "/^DELETE FROM wp_options WHERE option_name LIKE $v$/", $sql, $m ) ) {
			$pattern = '/^' . str_replace( array( '%', '_' ), array( '.*', '.' ), preg_replace( '/\\\\\\\\([_%])/', '$1', preg_quote( stripslashes( $m[1] ), '/' ) ) ) . '$/';
			$before  = count( WP::$options );
			WP::$options = array_filter( WP::$options, static fn ( $name ): bool => 1 !== preg_match( $pattern, (string) $name ), ARRAY_FILTER_USE_KEY );
			return $before - count( WP::$options );
		}
		throw new LogicException( "The fake \$wpdb knows no statement like: $sql" );
	}

	/** MySQL's LIKE as a regular expression: % any text, _ any character, \\ before either the character itself. */
	private static function like_regex( string $like ): string {
		$regex = '';
		for ( $i = 0; $i < strlen( $like ); $i++ ) {
			$char = $like[ $i ];
			if ( '\\' === $char && $i + 1 < strlen( $like ) ) {
				$regex .= preg_quote( $like[ ++$i ], '/' );
			} else {
				$regex .= '%' === $char ? '.*' : ( '_' === $char ? '.' : preg_quote( $char, '/' ) );
			}
		}
		return '/^' . $regex . '$/s';
	}

	public function get_var( string $sql ): ?string {
		$this->queries[] = $sql;
		if ( preg_match( "/^SELECT option_value FROM wp_options WHERE option_name = '((?:[^'\\\\]|\\\\.)*)'$/", $sql, $m ) ) {
			$value = WP::$options[ stripslashes( $m[1] ) ]['value'] ?? null;
			return null === $value ? null : (string) $value;
		}
		throw new LogicException( "The fake \$wpdb knows no statement like: $sql" );
	}
}

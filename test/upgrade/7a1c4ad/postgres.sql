--
-- PostgreSQL database dump
--

\restrict xAsyg3MnX5vFoLiPtlVxa4Qn6e9QVN2qflU5bUY65B8DAWXgozWwp7heJs2d0lH

-- Dumped from database version 15.20 (Debian 15.20-0+deb12u1)
-- Dumped by pg_dump version 15.20 (Debian 15.20-0+deb12u1)

SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

--
-- Name: lb_count_orders(); Type: FUNCTION; Schema: public; Owner: -
--

CREATE FUNCTION public.lb_count_orders() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    INSERT INTO lb_order_count_deltas (state, platform, reason, delta) VALUES (OLD.state, OLD.platform, coalesce(OLD.reason, ''), -1);
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO lb_order_count_deltas (state, platform, reason, delta) VALUES (NEW.state, NEW.platform, coalesce(NEW.reason, ''), 1);
  END IF;
  RETURN NULL;
END;
$$;


SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: lb_dead_letters; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.lb_dead_letters (
    id text NOT NULL,
    created_at timestamp with time zone NOT NULL,
    platform text,
    shop text,
    order_key text,
    letter jsonb NOT NULL
);


--
-- Name: lb_inbox; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.lb_inbox (
    key text NOT NULL,
    aliases text[] DEFAULT '{}'::text[] NOT NULL,
    received_at timestamp with time zone NOT NULL,
    entry jsonb NOT NULL,
    retry jsonb,
    due_at timestamp with time zone NOT NULL,
    lease_owner text,
    lease_until timestamp with time zone
);


--
-- Name: lb_lp_order_ids; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.lb_lp_order_ids (
    lp_order_id text NOT NULL,
    order_key text NOT NULL
);


--
-- Name: lb_migrations; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.lb_migrations (
    id integer NOT NULL,
    name character varying(255) NOT NULL,
    run_on timestamp without time zone NOT NULL
);


--
-- Name: lb_migrations_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.lb_migrations_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: lb_migrations_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.lb_migrations_id_seq OWNED BY public.lb_migrations.id;


--
-- Name: lb_order_count_deltas; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.lb_order_count_deltas (
    state text NOT NULL,
    platform text NOT NULL,
    reason text DEFAULT ''::text NOT NULL,
    delta integer NOT NULL
);


--
-- Name: lb_order_counts; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.lb_order_counts (
    state text NOT NULL,
    platform text NOT NULL,
    reason text DEFAULT ''::text NOT NULL,
    count bigint NOT NULL
);


--
-- Name: lb_orders; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.lb_orders (
    key text NOT NULL,
    platform text NOT NULL,
    shop text NOT NULL,
    order_id text NOT NULL,
    order_name text DEFAULT ''::text NOT NULL,
    state text DEFAULT 'new'::text NOT NULL,
    reason text,
    upstream text DEFAULT 'none'::text NOT NULL,
    email text,
    mobile text,
    updated_at timestamp with time zone NOT NULL,
    due_at timestamp with time zone,
    lease_owner text,
    lease_until timestamp with time zone,
    version bigint DEFAULT 0 NOT NULL,
    fold_version bigint DEFAULT 0 NOT NULL,
    fold jsonb NOT NULL,
    progress jsonb NOT NULL,
    lane text DEFAULT 'live'::text NOT NULL
);


--
-- Name: lb_rate_limit; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.lb_rate_limit (
    key character varying(255) NOT NULL,
    points integer DEFAULT 0 NOT NULL,
    expire bigint
);


--
-- Name: lb_records; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.lb_records (
    kind text NOT NULL,
    id text NOT NULL,
    value jsonb NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL
);


--
-- Name: lb_seen; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.lb_seen (
    key text NOT NULL,
    received_at timestamp with time zone NOT NULL
);


--
-- Name: lb_migrations id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.lb_migrations ALTER COLUMN id SET DEFAULT nextval('public.lb_migrations_id_seq'::regclass);


--
-- Data for Name: lb_dead_letters; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.lb_dead_letters VALUES ('delivery-7ad63986e335b2f33821', '2026-11-23 17:25:50.656+00', 'shopify', 'upgrade-fixture.myshopify.com', NULL, '{"id": "delivery-7ad63986e335b2f33821", "kind": "delivery", "shop": "upgrade-fixture.myshopify.com", "topic": "orders/paid", "reason": "the order has no numeric id", "retries": 0, "delivery": {"body": "{\"id\":\"not-an-order-id\",\"admin_graphql_api_id\":\"gid://shopify/Order/7361000000016\",\"name\":\"#0016\",\"order_number\":16,\"email\":\"grace@example.com\",\"contact_email\":null,\"phone\":null,\"created_at\":\"2026-11-20T09:00:00-05:00\",\"updated_at\":\"2026-11-20T09:00:00-05:00\",\"cancelled_at\":null,\"financial_status\":\"paid\",\"fulfillment_status\":null,\"test\":false,\"currency\":\"USD\",\"total_price\":\"120.00\",\"subtotal_price\":\"120.00\",\"subtotal_price_set\":{\"shop_money\":{\"amount\":\"120.00\",\"currency_code\":\"USD\"}},\"source_name\":\"web\",\"landing_site\":\"/collections/all?utm_source=newsletter\",\"discount_codes\":[],\"note_attributes\":[],\"refunds\":[],\"customer\":{\"id\":7001,\"first_name\":\"Grace\",\"last_name\":\"Hopper\",\"email\":\"grace@example.com\",\"phone\":null,\"default_address\":{\"country_code\":\"US\"}},\"billing_address\":{\"first_name\":\"Grace\",\"last_name\":\"Hopper\",\"phone\":\"(212) 555-0142\",\"country_code\":\"US\"},\"shipping_address\":{\"first_name\":\"G\",\"last_name\":\"Hopper\",\"phone\":null,\"country_code\":\"US\"},\"line_items\":[{\"id\":1,\"title\":\"Compiler\",\"quantity\":1,\"price\":\"120.00\"}]}", "shop": "upgrade-fixture.myshopify.com", "topic": "orders/paid", "sentAt": "2026-11-23T17:25:50.646Z", "headers": {"x-shopify-webhook-id": "b54557e4-bdd9-4b37-8a5f-bf7d70b00053", "x-shopify-api-version": "2026-04"}, "platform": "shopify", "bodyEncoding": "utf8"}, "platform": "shopify", "createdAt": "2026-11-23T17:25:50.656Z", "deliveryKey": "shopify:b54557e4-bdd9-4b37-8a5f-bf7d70b00053"}');
INSERT INTO public.lb_dead_letters VALUES ('2a8d0cdb-45d9-46c1-a825-3173c65726f5', '2026-11-23 17:25:50.707+00', 'shopify', 'upgrade-fixture.myshopify.com', 'shopify:upgrade-fixture.myshopify.com:7361000000015', '{"id": "2a8d0cdb-45d9-46c1-a825-3173c65726f5", "kind": "call", "shop": "upgrade-fixture.myshopify.com", "reason": "400 Invalid Source: injected fault", "retries": 0, "orderKey": "shopify:upgrade-fixture.myshopify.com:7361000000015", "platform": "shopify", "createdAt": "2026-11-23T17:25:50.707Z", "operation": "earn", "httpStatus": 400}');
INSERT INTO public.lb_dead_letters VALUES ('delivery-5172c614685adb9a0f61', '2026-11-23 17:25:51.025+00', 'bigcommerce', 'upgr01', NULL, '{"id": "delivery-5172c614685adb9a0f61", "kind": "delivery", "shop": "upgr01", "topic": "store/order/created", "reason": "BigCommerce says order 6299 does not exist", "retries": 0, "delivery": {"body": "{\"scope\":\"store/order/created\",\"store_id\":\"1001234567\",\"data\":{\"type\":\"order\",\"id\":6299},\"hash\":\"2fdd7a7315825f2662559207f3b6f69826a66b28\",\"created_at\":1795454751,\"producer\":\"stores/upgr01\"}", "shop": "upgr01", "topic": "store/order/created", "sentAt": "2026-11-23T17:25:51.000Z", "headers": {"webhook-id": "msg_71175122-c92d-4825-98bf-278a37f3bb19"}, "platform": "bigcommerce", "bodyEncoding": "utf8"}, "platform": "bigcommerce", "createdAt": "2026-11-23T17:25:51.025Z", "deliveryKey": "bigcommerce:msg_71175122-c92d-4825-98bf-278a37f3bb19"}');


--
-- Data for Name: lb_inbox; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.lb_inbox VALUES ('bigcommerce:msg_3d7b3e98-b705-4099-8647-dc0c71a7a7de', '{bigcommerce:payload:upgr01:store/order/created:9bb9c810898be9af3ed249dada1e9a50aa4768bc:1795454751}', '2026-11-23 17:25:51.198+00', '{"delivery": {"body": "{\"scope\":\"store/order/created\",\"store_id\":\"1001234567\",\"data\":{\"type\":\"order\",\"id\":6207},\"hash\":\"9bb9c810898be9af3ed249dada1e9a50aa4768bc\",\"created_at\":1795454751,\"producer\":\"stores/upgr01\"}", "shop": "upgr01", "topic": "store/order/created", "sentAt": "2026-11-23T17:25:51.000Z", "headers": {"webhook-id": "msg_3d7b3e98-b705-4099-8647-dc0c71a7a7de"}, "platform": "bigcommerce", "bodyEncoding": "utf8"}}', '{"retryAt": "2026-11-23T17:26:09.694Z", "attempts": 1, "lastError": "BigCommerce did not answer GET v2/orders/6207 (ETIMEDOUT)", "firstFailureAt": "2026-11-23T17:26:06.206Z"}', '2026-11-23 17:26:09.694+00', NULL, NULL);
INSERT INTO public.lb_inbox VALUES ('shopify:b54557e4-bdd9-4b37-8a5f-bf7d70b00058', '{}', '2026-11-23 17:26:06.251+00', '{"delivery": {"body": "{\"id\":7361000000020,\"admin_graphql_api_id\":\"gid://shopify/Order/7361000000020\",\"name\":\"#0020\",\"order_number\":20,\"email\":\"grace@example.com\",\"contact_email\":null,\"phone\":null,\"created_at\":\"2026-11-20T09:00:00-05:00\",\"updated_at\":\"2026-11-20T15:00:00-05:00\",\"cancelled_at\":null,\"financial_status\":\"paid\",\"fulfillment_status\":null,\"test\":false,\"currency\":\"USD\",\"total_price\":\"120.00\",\"subtotal_price\":\"120.00\",\"subtotal_price_set\":{\"shop_money\":{\"amount\":\"120.00\",\"currency_code\":\"USD\"}},\"source_name\":\"web\",\"landing_site\":\"/collections/all?utm_source=newsletter\",\"discount_codes\":[],\"note_attributes\":[],\"refunds\":[],\"customer\":{\"id\":7001,\"first_name\":\"Grace\",\"last_name\":\"Hopper\",\"email\":\"grace@example.com\",\"phone\":null,\"default_address\":{\"country_code\":\"US\"}},\"billing_address\":{\"first_name\":\"Grace\",\"last_name\":\"Hopper\",\"phone\":\"(212) 555-0142\",\"country_code\":\"US\"},\"shipping_address\":{\"first_name\":\"G\",\"last_name\":\"Hopper\",\"phone\":null,\"country_code\":\"US\"},\"line_items\":[{\"id\":1,\"title\":\"Compiler\",\"quantity\":1,\"price\":\"120.00\"}]}", "shop": "upgrade-fixture.myshopify.com", "topic": "orders/paid", "sentAt": "2026-11-23T17:26:06.246Z", "headers": {"x-shopify-webhook-id": "b54557e4-bdd9-4b37-8a5f-bf7d70b00058", "x-shopify-api-version": "2026-04"}, "platform": "shopify", "bodyEncoding": "utf8"}}', NULL, '2026-11-23 17:26:06.251+00', NULL, NULL);
INSERT INTO public.lb_inbox VALUES ('shopify:b54557e4-bdd9-4b37-8a5f-bf7d70b00059', '{}', '2026-11-23 17:26:06.261+00', '{"delivery": {"body": "{\"id\":7361000000021,\"admin_graphql_api_id\":\"gid://shopify/Order/7361000000021\",\"name\":\"#0021\",\"order_number\":21,\"email\":\"grace@example.com\",\"contact_email\":null,\"phone\":null,\"created_at\":\"2026-11-20T09:00:00-05:00\",\"updated_at\":\"2026-11-20T15:00:00-05:00\",\"cancelled_at\":null,\"financial_status\":\"paid\",\"fulfillment_status\":null,\"test\":false,\"currency\":\"USD\",\"total_price\":\"89.50\",\"subtotal_price\":\"89.50\",\"subtotal_price_set\":{\"shop_money\":{\"amount\":\"89.50\",\"currency_code\":\"USD\"}},\"source_name\":\"web\",\"landing_site\":\"/products/compiler?utm_source=friend&loyalty_campaign=21&loyalty_referrer=ANNA-8\",\"discount_codes\":[],\"note_attributes\":[],\"refunds\":[],\"customer\":{\"id\":7001,\"first_name\":\"Grace\",\"last_name\":\"Hopper\",\"email\":\"grace@example.com\",\"phone\":\"+1 212 555 0142\",\"default_address\":{\"country_code\":\"US\"}},\"billing_address\":{\"first_name\":\"Grace\",\"last_name\":\"Hopper\",\"phone\":\"(212) 555-0142\",\"country_code\":\"US\"},\"shipping_address\":{\"first_name\":\"G\",\"last_name\":\"Hopper\",\"phone\":null,\"country_code\":\"US\"},\"line_items\":[{\"id\":1,\"title\":\"Compiler\",\"quantity\":1,\"price\":\"89.50\"}]}", "shop": "upgrade-fixture.myshopify.com", "topic": "orders/paid", "sentAt": "2026-11-23T17:26:06.260Z", "headers": {"x-shopify-webhook-id": "b54557e4-bdd9-4b37-8a5f-bf7d70b00059", "x-shopify-api-version": "2026-04"}, "platform": "shopify", "bodyEncoding": "utf8"}}', NULL, '2026-11-23 17:26:06.261+00', NULL, NULL);
INSERT INTO public.lb_inbox VALUES ('shopify:b54557e4-bdd9-4b37-8a5f-bf7d70b00060', '{}', '2026-11-23 17:26:06.264+00', '{"delivery": {"body": "{\"id\":9007199254740993,\"admin_graphql_api_id\":\"gid://shopify/Order/9007199254740993\",\"name\":\"#0993\",\"order_number\":993,\"email\":\"grace@example.com\",\"contact_email\":null,\"phone\":null,\"created_at\":\"2026-11-20T09:00:00-05:00\",\"updated_at\":\"2026-11-20T16:00:00-05:00\",\"cancelled_at\":\"2026-11-20T16:00:00-05:00\",\"financial_status\":\"refunded\",\"fulfillment_status\":null,\"test\":false,\"currency\":\"USD\",\"total_price\":\"120.00\",\"subtotal_price\":\"120.00\",\"subtotal_price_set\":{\"shop_money\":{\"amount\":\"120.00\",\"currency_code\":\"USD\"}},\"source_name\":\"web\",\"landing_site\":\"/collections/all?utm_source=newsletter\",\"discount_codes\":[],\"note_attributes\":[],\"refunds\":[],\"customer\":{\"id\":7001,\"first_name\":\"Grace\",\"last_name\":\"Hopper\",\"email\":\"grace@example.com\",\"phone\":null,\"default_address\":{\"country_code\":\"US\"}},\"billing_address\":{\"first_name\":\"Grace\",\"last_name\":\"Hopper\",\"phone\":\"(212) 555-0142\",\"country_code\":\"US\"},\"shipping_address\":{\"first_name\":\"G\",\"last_name\":\"Hopper\",\"phone\":null,\"country_code\":\"US\"},\"line_items\":[{\"id\":1,\"title\":\"Compiler\",\"quantity\":1,\"price\":\"120.00\"}]}", "shop": "upgrade-fixture.myshopify.com", "topic": "orders/cancelled", "sentAt": "2026-11-23T17:26:06.263Z", "headers": {"x-shopify-webhook-id": "b54557e4-bdd9-4b37-8a5f-bf7d70b00060", "x-shopify-api-version": "2026-04"}, "platform": "shopify", "bodyEncoding": "utf8"}}', NULL, '2026-11-23 17:26:06.264+00', NULL, NULL);
INSERT INTO public.lb_inbox VALUES ('woocommerce:shop.upgrade-fixture.example:2:5201:2026-11-23T17:21:06:completed:32e5ac2d1c27b6a0908ced162fbcb683', '{}', '2026-11-23 17:26:06.269+00', '{"delivery": {"body": "{\"id\":5201,\"parent_id\":0,\"number\":\"5201\",\"status\":\"completed\",\"currency\":\"EUR\",\"total\":\"64.00\",\"date_created_gmt\":\"2026-11-19T09:00:00\",\"date_modified_gmt\":\"2026-11-23T17:21:06\",\"created_via\":\"checkout\",\"billing\":{\"first_name\":\"Katherine\",\"last_name\":\"Johnson\",\"email\":\"katherine@example.com\",\"phone\":\"06 12 34 56 78\",\"country\":\"FR\"},\"shipping\":{\"first_name\":\"Katherine\",\"last_name\":\"Johnson\",\"country\":\"FR\"},\"coupon_lines\":[],\"meta_data\":[],\"refunds\":[],\"line_items\":[{\"id\":1,\"name\":\"Slide rule\",\"quantity\":1,\"total\":\"64.00\"}]}", "shop": "shop.upgrade-fixture.example", "topic": "order.updated", "sentAt": "2026-11-23T17:26:06.267Z", "headers": {"x-wc-webhook-id": "2"}, "platform": "woocommerce", "bodyEncoding": "utf8"}}', NULL, '2026-11-23 17:26:06.269+00', NULL, NULL);
INSERT INTO public.lb_inbox VALUES ('bigcommerce:msg_684b597e-e0e3-4ee5-a30d-9840aab116ab', '{bigcommerce:payload:upgr01:store/order/statusupdated:ce844890543ba763f774e8384dfa836cae324f9d:1795454766}', '2026-11-23 17:26:06.282+00', '{"delivery": {"body": "{\"scope\":\"store/order/statusUpdated\",\"store_id\":\"1001234567\",\"data\":{\"type\":\"order\",\"id\":6201},\"hash\":\"ce844890543ba763f774e8384dfa836cae324f9d\",\"created_at\":1795454766,\"producer\":\"stores/upgr01\"}", "shop": "upgr01", "topic": "store/order/statusUpdated", "sentAt": "2026-11-23T17:26:06.000Z", "headers": {"webhook-id": "msg_684b597e-e0e3-4ee5-a30d-9840aab116ab"}, "platform": "bigcommerce", "bodyEncoding": "utf8"}}', NULL, '2026-11-23 17:26:06.282+00', NULL, NULL);
INSERT INTO public.lb_inbox VALUES ('woocommerce-resync:5201:2026-11-23T17:21:06:completed', '{}', '2026-11-23 17:26:06.299+00', '{"lane": "backfill", "events": [{"shop": "shop.upgrade-fixture.example", "test": false, "facts": ["placed", "paid", "fulfilled"], "total": {"amount": "64.00", "currency": "EUR"}, "source": "checkout", "orderId": "5201", "refunds": [], "customer": {"name": "Katherine Johnson", "email": "katherine@example.com", "mobile": "+33612345678"}, "platform": "woocommerce", "subtotal": "64", "orderName": "#5201", "attributes": {}, "deliveryId": "woocommerce-resync:5201:2026-11-23T17:21:06:completed", "occurredAt": "2026-11-23T17:21:06.000Z", "landingSite": null, "discountCodes": []}]}', NULL, '2026-11-23 17:26:06.299+00', NULL, NULL);
INSERT INTO public.lb_inbox VALUES ('woocommerce-resync:5208:2026-11-23T17:24:06:processing', '{}', '2026-11-23 17:26:06.301+00', '{"lane": "backfill", "events": [{"shop": "shop.upgrade-fixture.example", "test": false, "facts": ["placed", "paid"], "total": {"amount": "64.00", "currency": "EUR"}, "source": "checkout", "orderId": "5208", "refunds": [], "customer": {"name": "Katherine Johnson", "email": "missed@example.com", "mobile": "+33612345678"}, "platform": "woocommerce", "subtotal": "64", "orderName": "#5208", "attributes": {}, "deliveryId": "woocommerce-resync:5208:2026-11-23T17:24:06:processing", "occurredAt": "2026-11-23T17:24:06.000Z", "landingSite": null, "discountCodes": []}]}', NULL, '2026-11-23 17:26:06.301+00', NULL, NULL);


--
-- Data for Name: lb_lp_order_ids; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.lb_lp_order_ids VALUES ('7361000000008', 'shopify:upgrade-fixture.myshopify.com:7361000000008');
INSERT INTO public.lb_lp_order_ids VALUES ('7361000000007', 'shopify:upgrade-fixture.myshopify.com:7361000000007');
INSERT INTO public.lb_lp_order_ids VALUES ('7361000000009', 'shopify:upgrade-fixture.myshopify.com:7361000000009');
INSERT INTO public.lb_lp_order_ids VALUES ('7361000000010', 'shopify:upgrade-fixture.myshopify.com:7361000000010');
INSERT INTO public.lb_lp_order_ids VALUES ('7361000000011', 'shopify:upgrade-fixture.myshopify.com:7361000000011');
INSERT INTO public.lb_lp_order_ids VALUES ('7361000000012', 'shopify:upgrade-fixture.myshopify.com:7361000000012');
INSERT INTO public.lb_lp_order_ids VALUES ('9007199254740993', 'shopify:upgrade-fixture.myshopify.com:9007199254740993');
INSERT INTO public.lb_lp_order_ids VALUES ('7361000000014', 'shopify:upgrade-fixture.myshopify.com:7361000000014');
INSERT INTO public.lb_lp_order_ids VALUES ('7361000000015', 'shopify:upgrade-fixture.myshopify.com:7361000000015');
INSERT INTO public.lb_lp_order_ids VALUES ('5201', 'woocommerce:shop.upgrade-fixture.example:5201');
INSERT INTO public.lb_lp_order_ids VALUES ('5202', 'woocommerce:shop.upgrade-fixture.example:5202');
INSERT INTO public.lb_lp_order_ids VALUES ('5203', 'woocommerce:shop.upgrade-fixture.example:5203');
INSERT INTO public.lb_lp_order_ids VALUES ('5205', 'woocommerce:shop.upgrade-fixture.example:5205');
INSERT INTO public.lb_lp_order_ids VALUES ('96202', 'bigcommerce:upgr01:6202');
INSERT INTO public.lb_lp_order_ids VALUES ('96201', 'bigcommerce:upgr01:6201');
INSERT INTO public.lb_lp_order_ids VALUES ('96203', 'bigcommerce:upgr01:6203');
INSERT INTO public.lb_lp_order_ids VALUES ('96204', 'bigcommerce:upgr01:6204');
INSERT INTO public.lb_lp_order_ids VALUES ('7361000000017', 'shopify:upgrade-fixture.myshopify.com:7361000000017');


--
-- Data for Name: lb_migrations; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.lb_migrations VALUES (1, '001_ledger', '2026-11-23 17:25:49.925901');
INSERT INTO public.lb_migrations VALUES (2, '002_count_deltas', '2026-11-23 17:25:49.925901');
INSERT INTO public.lb_migrations VALUES (3, '003_lanes', '2026-11-23 17:25:49.925901');


--
-- Data for Name: lb_order_count_deltas; Type: TABLE DATA; Schema: public; Owner: -
--



--
-- Data for Name: lb_order_counts; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.lb_order_counts VALUES ('approved', 'bigcommerce', '', 2);
INSERT INTO public.lb_order_counts VALUES ('approved', 'shopify', '', 4);
INSERT INTO public.lb_order_counts VALUES ('approved', 'woocommerce', '', 1);
INSERT INTO public.lb_order_counts VALUES ('cancelled', 'bigcommerce', '', 1);
INSERT INTO public.lb_order_counts VALUES ('cancelled', 'shopify', '', 1);
INSERT INTO public.lb_order_counts VALUES ('cancelled', 'woocommerce', '', 1);
INSERT INTO public.lb_order_counts VALUES ('earned', 'bigcommerce', '', 1);
INSERT INTO public.lb_order_counts VALUES ('earned', 'shopify', '', 5);
INSERT INTO public.lb_order_counts VALUES ('earned', 'woocommerce', '', 2);
INSERT INTO public.lb_order_counts VALUES ('new', 'bigcommerce', '', 1);
INSERT INTO public.lb_order_counts VALUES ('new', 'shopify', '', 2);
INSERT INTO public.lb_order_counts VALUES ('new', 'woocommerce', '', 1);
INSERT INTO public.lb_order_counts VALUES ('skipped', 'shopify', 'below_minimum', 1);
INSERT INTO public.lb_order_counts VALUES ('skipped', 'shopify', 'excluded_source', 1);
INSERT INTO public.lb_order_counts VALUES ('skipped', 'shopify', 'missing_email', 1);
INSERT INTO public.lb_order_counts VALUES ('skipped', 'shopify', 'test_order', 1);
INSERT INTO public.lb_order_counts VALUES ('void', 'shopify', '', 1);
INSERT INTO public.lb_order_counts VALUES ('void', 'woocommerce', '', 1);


--
-- Data for Name: lb_orders; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.lb_orders VALUES ('shopify:upgrade-fixture.myshopify.com:7361000000001', 'shopify', 'upgrade-fixture.myshopify.com', '7361000000001', '#0001', 'new', NULL, 'none', 'grace@example.com', '+12125550142', '2026-11-23 17:25:50.291+00', NULL, NULL, NULL, 2, 1, '{"facts": ["placed"], "refunds": {}, "erasedAt": null, "snapshot": {"test": false, "total": {"amount": "120.00", "currency": "USD"}, "source": "web", "customer": {"name": "Grace Hopper", "email": "grace@example.com", "mobile": "+12125550142"}, "subtotal": "120.00", "orderName": "#0001", "attributes": {}, "landingSite": "/collections/all?utm_source=newsletter", "discountCodes": [], "protectedDataHidden": false}, "deliveries": ["shopify:b54557e4-bdd9-4b37-8a5f-bf7d70b00031"], "firstSeenAt": "2026-11-23T17:25:50.291Z", "snapshotFrom": {"total": "2026-11-20T14:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00031", "source": "2026-11-20T14:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00031", "subtotal": "2026-11-20T14:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00031", "orderName": "2026-11-20T14:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00031", "landingSite": "2026-11-20T14:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00031", "customer.name": "2026-11-20T14:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00031", "customer.email": "2026-11-20T14:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00031", "customer.mobile": "2026-11-20T14:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00031", "protectedDataHidden": "2026-11-20T14:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00031"}}', '{"work": {"held": {}, "retryAt": null, "attempts": 0, "lastError": null, "firstFailureAt": null}, "calls": [], "target": {"state": "new"}, "upstream": {"points": "none", "earnedAt": null, "conversion": "none", "redemption": "none"}}', 'live');
INSERT INTO public.lb_orders VALUES ('shopify:upgrade-fixture.myshopify.com:7361000000002', 'shopify', 'upgrade-fixture.myshopify.com', '7361000000002', '#0002', 'skipped', 'test_order', 'none', 'grace@example.com', '+12125550142', '2026-11-23 17:25:50.309+00', NULL, NULL, NULL, 2, 1, '{"facts": ["placed", "paid"], "refunds": {}, "erasedAt": null, "snapshot": {"test": true, "total": {"amount": "120.00", "currency": "USD"}, "source": "web", "customer": {"name": "Grace Hopper", "email": "grace@example.com", "mobile": "+12125550142"}, "subtotal": "120.00", "orderName": "#0002", "attributes": {}, "landingSite": "/collections/all?utm_source=newsletter", "discountCodes": [], "protectedDataHidden": false}, "deliveries": ["shopify:b54557e4-bdd9-4b37-8a5f-bf7d70b00032"], "firstSeenAt": "2026-11-23T17:25:50.309Z", "snapshotFrom": {"total": "2026-11-20T14:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00032", "source": "2026-11-20T14:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00032", "subtotal": "2026-11-20T14:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00032", "orderName": "2026-11-20T14:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00032", "landingSite": "2026-11-20T14:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00032", "customer.name": "2026-11-20T14:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00032", "customer.email": "2026-11-20T14:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00032", "customer.mobile": "2026-11-20T14:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00032", "protectedDataHidden": "2026-11-20T14:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00032"}}', '{"work": {"held": {}, "retryAt": null, "attempts": 0, "lastError": null, "firstFailureAt": null}, "calls": [], "target": {"state": "skipped", "reason": "test_order"}, "upstream": {"points": "none", "earnedAt": null, "conversion": "none", "redemption": "none"}}', 'live');
INSERT INTO public.lb_orders VALUES ('shopify:upgrade-fixture.myshopify.com:7361000000003', 'shopify', 'upgrade-fixture.myshopify.com', '7361000000003', '#0003', 'skipped', 'missing_email', 'none', NULL, '+12125550142', '2026-11-23 17:25:50.305+00', NULL, NULL, NULL, 2, 1, '{"facts": ["placed", "paid"], "refunds": {}, "erasedAt": null, "snapshot": {"test": false, "total": {"amount": "120.00", "currency": "USD"}, "source": "web", "customer": {"name": "Grace Hopper", "email": null, "mobile": "+12125550142"}, "subtotal": "120.00", "orderName": "#0003", "attributes": {}, "landingSite": "/collections/all?utm_source=newsletter", "discountCodes": [], "protectedDataHidden": false}, "deliveries": ["shopify:b54557e4-bdd9-4b37-8a5f-bf7d70b00033"], "firstSeenAt": "2026-11-23T17:25:50.305Z", "snapshotFrom": {"total": "2026-11-20T14:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00033", "source": "2026-11-20T14:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00033", "subtotal": "2026-11-20T14:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00033", "orderName": "2026-11-20T14:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00033", "landingSite": "2026-11-20T14:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00033", "customer.name": "2026-11-20T14:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00033", "customer.mobile": "2026-11-20T14:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00033", "protectedDataHidden": "2026-11-20T14:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00033"}}', '{"work": {"held": {}, "retryAt": null, "attempts": 0, "lastError": null, "firstFailureAt": null}, "calls": [], "target": {"state": "skipped", "reason": "missing_email"}, "upstream": {"points": "none", "earnedAt": null, "conversion": "none", "redemption": "none"}}', 'live');
INSERT INTO public.lb_orders VALUES ('shopify:upgrade-fixture.myshopify.com:7361000000004', 'shopify', 'upgrade-fixture.myshopify.com', '7361000000004', '#0004', 'skipped', 'below_minimum', 'none', 'grace@example.com', '+12125550142', '2026-11-23 17:25:50.321+00', NULL, NULL, NULL, 2, 1, '{"facts": ["placed", "paid"], "refunds": {}, "erasedAt": null, "snapshot": {"test": false, "total": {"amount": "2.00", "currency": "USD"}, "source": "web", "customer": {"name": "Grace Hopper", "email": "grace@example.com", "mobile": "+12125550142"}, "subtotal": "2.00", "orderName": "#0004", "attributes": {}, "landingSite": "/collections/all?utm_source=newsletter", "discountCodes": [], "protectedDataHidden": false}, "deliveries": ["shopify:b54557e4-bdd9-4b37-8a5f-bf7d70b00034"], "firstSeenAt": "2026-11-23T17:25:50.321Z", "snapshotFrom": {"total": "2026-11-20T14:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00034", "source": "2026-11-20T14:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00034", "subtotal": "2026-11-20T14:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00034", "orderName": "2026-11-20T14:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00034", "landingSite": "2026-11-20T14:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00034", "customer.name": "2026-11-20T14:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00034", "customer.email": "2026-11-20T14:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00034", "customer.mobile": "2026-11-20T14:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00034", "protectedDataHidden": "2026-11-20T14:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00034"}}', '{"work": {"held": {}, "retryAt": null, "attempts": 0, "lastError": null, "firstFailureAt": null}, "calls": [], "target": {"state": "skipped", "reason": "below_minimum"}, "upstream": {"points": "none", "earnedAt": null, "conversion": "none", "redemption": "none"}}', 'live');
INSERT INTO public.lb_orders VALUES ('shopify:upgrade-fixture.myshopify.com:7361000000008', 'shopify', 'upgrade-fixture.myshopify.com', '7361000000008', '#0008', 'approved', NULL, 'approved', 'grace@example.com', '+12125550142', '2026-11-23 17:25:50.43+00', NULL, NULL, NULL, 7, 2, '{"facts": ["placed", "paid", "fulfilled"], "refunds": {}, "erasedAt": null, "snapshot": {"test": false, "total": {"amount": "120.00", "currency": "USD"}, "source": "web", "customer": {"name": "Grace Hopper", "email": "grace@example.com", "mobile": "+12125550142"}, "subtotal": "120.00", "orderName": "#0008", "attributes": {}, "landingSite": "/collections/all?utm_source=newsletter", "discountCodes": [], "protectedDataHidden": false}, "deliveries": ["shopify:b54557e4-bdd9-4b37-8a5f-bf7d70b00040", "shopify:b54557e4-bdd9-4b37-8a5f-bf7d70b00041"], "firstSeenAt": "2026-11-23T17:25:50.372Z", "snapshotFrom": {"total": "2026-11-20T16:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00041", "source": "2026-11-20T16:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00041", "subtotal": "2026-11-20T16:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00041", "orderName": "2026-11-20T16:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00041", "landingSite": "2026-11-20T16:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00041", "customer.name": "2026-11-20T16:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00041", "customer.email": "2026-11-20T16:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00041", "customer.mobile": "2026-11-20T16:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00041", "protectedDataHidden": "2026-11-20T16:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00041"}}', '{"work": {"held": {}, "retryAt": null, "attempts": 0, "lastError": null, "firstFailureAt": null}, "calls": [{"at": "2026-11-23T17:25:50.393Z", "message": "Points earned", "outcome": "success", "attempts": 1, "operation": "earn"}, {"at": "2026-11-23T17:25:50.430Z", "message": "Points updated", "outcome": "success", "attempts": 1, "operation": "approve"}], "target": {"state": "approved"}, "upstream": {"points": "approved", "earnedAt": "2026-11-23T17:25:50.393Z", "lpOrderId": "7361000000008", "conversion": "none", "redemption": "none", "earnActivityId": "1"}}', 'live');
INSERT INTO public.lb_orders VALUES ('shopify:upgrade-fixture.myshopify.com:7361000000009', 'shopify', 'upgrade-fixture.myshopify.com', '7361000000009', '#0009', 'cancelled', NULL, 'cancelled', 'grace@example.com', '+12125550142', '2026-11-23 17:25:50.487+00', NULL, NULL, NULL, 7, 2, '{"facts": ["placed", "paid", "fullyRefunded", "cancelled"], "refunds": {}, "erasedAt": null, "snapshot": {"test": false, "total": {"amount": "120.00", "currency": "USD"}, "source": "web", "customer": {"name": "Grace Hopper", "email": "grace@example.com", "mobile": "+12125550142"}, "subtotal": "120.00", "orderName": "#0009", "attributes": {}, "landingSite": "/collections/all?utm_source=newsletter", "discountCodes": [], "protectedDataHidden": false}, "deliveries": ["shopify:b54557e4-bdd9-4b37-8a5f-bf7d70b00042", "shopify:b54557e4-bdd9-4b37-8a5f-bf7d70b00043"], "firstSeenAt": "2026-11-23T17:25:50.417Z", "snapshotFrom": {"total": "2026-11-20T17:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00043", "source": "2026-11-20T17:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00043", "subtotal": "2026-11-20T17:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00043", "orderName": "2026-11-20T17:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00043", "landingSite": "2026-11-20T17:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00043", "customer.name": "2026-11-20T17:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00043", "customer.email": "2026-11-20T17:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00043", "customer.mobile": "2026-11-20T17:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00043", "protectedDataHidden": "2026-11-20T17:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00043"}}', '{"work": {"held": {}, "retryAt": null, "attempts": 0, "lastError": null, "firstFailureAt": null}, "calls": [{"at": "2026-11-23T17:25:50.445Z", "message": "Points earned", "outcome": "success", "attempts": 1, "operation": "earn"}, {"at": "2026-11-23T17:25:50.487Z", "message": "Points updated", "outcome": "success", "attempts": 1, "operation": "cancel"}], "target": {"state": "cancelled"}, "upstream": {"points": "cancelled", "earnedAt": "2026-11-23T17:25:50.445Z", "lpOrderId": "7361000000009", "conversion": "none", "redemption": "none", "earnActivityId": "1"}}', 'live');
INSERT INTO public.lb_orders VALUES ('shopify:upgrade-fixture.myshopify.com:7361000000006', 'shopify', 'upgrade-fixture.myshopify.com', '7361000000006', '#0006', 'void', NULL, 'none', 'grace@example.com', '+12125550142', '2026-11-23 17:25:50.354+00', NULL, NULL, NULL, 3, 2, '{"facts": ["placed", "cancelled"], "refunds": {}, "erasedAt": null, "snapshot": {"test": false, "total": {"amount": "120.00", "currency": "USD"}, "source": "web", "customer": {"name": "Grace Hopper", "email": "grace@example.com", "mobile": "+12125550142"}, "subtotal": "120.00", "orderName": "#0006", "attributes": {}, "landingSite": "/collections/all?utm_source=newsletter", "discountCodes": [], "protectedDataHidden": false}, "deliveries": ["shopify:b54557e4-bdd9-4b37-8a5f-bf7d70b00036", "shopify:b54557e4-bdd9-4b37-8a5f-bf7d70b00037"], "firstSeenAt": "2026-11-23T17:25:50.339Z", "snapshotFrom": {"total": "2026-11-20T15:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00037", "source": "2026-11-20T15:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00037", "subtotal": "2026-11-20T15:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00037", "orderName": "2026-11-20T15:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00037", "landingSite": "2026-11-20T15:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00037", "customer.name": "2026-11-20T15:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00037", "customer.email": "2026-11-20T15:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00037", "customer.mobile": "2026-11-20T15:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00037", "protectedDataHidden": "2026-11-20T15:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00037"}}', '{"work": {"held": {}, "retryAt": null, "attempts": 0, "lastError": null, "firstFailureAt": null}, "calls": [], "target": {"state": "void"}, "upstream": {"points": "none", "earnedAt": null, "conversion": "none", "redemption": "none"}}', 'live');
INSERT INTO public.lb_orders VALUES ('shopify:upgrade-fixture.myshopify.com:9007199254740993', 'shopify', 'upgrade-fixture.myshopify.com', '9007199254740993', '#0993', 'earned', NULL, 'earned', 'grace@example.com', '+12125550142', '2026-11-23 17:25:50.603+00', NULL, NULL, NULL, 4, 1, '{"facts": ["placed", "paid"], "refunds": {}, "erasedAt": null, "snapshot": {"test": false, "total": {"amount": "120.00", "currency": "USD"}, "source": "web", "customer": {"name": "Grace Hopper", "email": "grace@example.com", "mobile": "+12125550142"}, "subtotal": "120.00", "orderName": "#0993", "attributes": {}, "landingSite": "/collections/all?utm_source=newsletter", "discountCodes": [], "protectedDataHidden": false}, "deliveries": ["shopify:b54557e4-bdd9-4b37-8a5f-bf7d70b00048"], "firstSeenAt": "2026-11-23T17:25:50.576Z", "snapshotFrom": {"total": "2026-11-20T14:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00048", "source": "2026-11-20T14:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00048", "subtotal": "2026-11-20T14:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00048", "orderName": "2026-11-20T14:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00048", "landingSite": "2026-11-20T14:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00048", "customer.name": "2026-11-20T14:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00048", "customer.email": "2026-11-20T14:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00048", "customer.mobile": "2026-11-20T14:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00048", "protectedDataHidden": "2026-11-20T14:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00048"}}', '{"work": {"held": {}, "retryAt": null, "attempts": 0, "lastError": null, "firstFailureAt": null}, "calls": [{"at": "2026-11-23T17:25:50.603Z", "message": "Points earned", "outcome": "success", "attempts": 1, "operation": "earn"}], "target": {"state": "earned"}, "upstream": {"points": "earned", "earnedAt": "2026-11-23T17:25:50.603Z", "lpOrderId": "9007199254740993", "conversion": "none", "redemption": "none", "earnActivityId": "1"}}', 'live');
INSERT INTO public.lb_orders VALUES ('bigcommerce:upgr01:6202', 'bigcommerce', 'upgr01', '6202', '#6202', 'approved', NULL, 'approved', 'dorothy@example.com', '+17575550199', '2026-11-23 17:25:51.066+00', NULL, NULL, NULL, 9, 3, '{"facts": ["placed", "paid", "fulfilled"], "refunds": {}, "erasedAt": null, "snapshot": {"test": false, "total": {"amount": "150.0000", "currency": "USD"}, "source": "www", "customer": {"name": "Dorothy Vaughan", "email": "dorothy@example.com", "mobile": "+17575550199"}, "subtotal": "150", "orderName": "#6202", "attributes": {}, "landingSite": null, "discountCodes": [], "protectedDataHidden": false}, "deliveries": ["bigcommerce:msg_1e1f6c58-a57f-4b61-9abd-9cf4f67203fc", "bigcommerce:msg_a4a6967a-f499-4bcf-9620-32f809a4e412", "bigcommerce-resync:6202:Thu, 19 Nov 2026 20:00:00 +0000:10"], "firstSeenAt": "2026-11-23T17:25:50.931Z", "snapshotFrom": {"total": "2026-11-19T21:00:00.000Z|bigcommerce:msg_1e1f6c58-a57f-4b61-9abd-9cf4f67203fc", "source": "2026-11-19T21:00:00.000Z|bigcommerce:msg_1e1f6c58-a57f-4b61-9abd-9cf4f67203fc", "subtotal": "2026-11-19T21:00:00.000Z|bigcommerce:msg_1e1f6c58-a57f-4b61-9abd-9cf4f67203fc", "orderName": "2026-11-19T21:00:00.000Z|bigcommerce:msg_1e1f6c58-a57f-4b61-9abd-9cf4f67203fc", "customer.name": "2026-11-19T21:00:00.000Z|bigcommerce:msg_1e1f6c58-a57f-4b61-9abd-9cf4f67203fc", "customer.email": "2026-11-19T21:00:00.000Z|bigcommerce:msg_1e1f6c58-a57f-4b61-9abd-9cf4f67203fc", "customer.mobile": "2026-11-19T21:00:00.000Z|bigcommerce:msg_1e1f6c58-a57f-4b61-9abd-9cf4f67203fc", "protectedDataHidden": "2026-11-19T21:00:00.000Z|bigcommerce:msg_1e1f6c58-a57f-4b61-9abd-9cf4f67203fc"}}', '{"work": {"held": {}, "retryAt": null, "attempts": 0, "lastError": null, "firstFailureAt": null}, "calls": [{"at": "2026-11-23T17:25:50.955Z", "message": "Points earned", "outcome": "success", "attempts": 1, "operation": "earn"}, {"at": "2026-11-23T17:25:51.029Z", "message": "Points updated", "outcome": "success", "attempts": 1, "operation": "approve"}], "target": {"state": "approved"}, "upstream": {"points": "approved", "earnedAt": "2026-11-23T17:25:50.955Z", "lpOrderId": "96202", "conversion": "none", "redemption": "none", "earnActivityId": "1"}}', 'live');
INSERT INTO public.lb_orders VALUES ('shopify:upgrade-fixture.myshopify.com:7361000000005', 'shopify', 'upgrade-fixture.myshopify.com', '7361000000005', '#0005', 'skipped', 'excluded_source', 'none', 'grace@example.com', '+12125550142', '2026-11-23 17:25:50.332+00', NULL, NULL, NULL, 2, 1, '{"facts": ["placed", "paid"], "refunds": {}, "erasedAt": null, "snapshot": {"test": false, "total": {"amount": "120.00", "currency": "USD"}, "source": "pos", "customer": {"name": "Grace Hopper", "email": "grace@example.com", "mobile": "+12125550142"}, "subtotal": "120.00", "orderName": "#0005", "attributes": {}, "landingSite": "/collections/all?utm_source=newsletter", "discountCodes": [], "protectedDataHidden": false}, "deliveries": ["shopify:b54557e4-bdd9-4b37-8a5f-bf7d70b00035"], "firstSeenAt": "2026-11-23T17:25:50.332Z", "snapshotFrom": {"total": "2026-11-20T14:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00035", "source": "2026-11-20T14:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00035", "subtotal": "2026-11-20T14:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00035", "orderName": "2026-11-20T14:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00035", "landingSite": "2026-11-20T14:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00035", "customer.name": "2026-11-20T14:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00035", "customer.email": "2026-11-20T14:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00035", "customer.mobile": "2026-11-20T14:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00035", "protectedDataHidden": "2026-11-20T14:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00035"}}', '{"work": {"held": {}, "retryAt": null, "attempts": 0, "lastError": null, "firstFailureAt": null}, "calls": [], "target": {"state": "skipped", "reason": "excluded_source"}, "upstream": {"points": "none", "earnedAt": null, "conversion": "none", "redemption": "none"}}', 'live');
INSERT INTO public.lb_orders VALUES ('shopify:upgrade-fixture.myshopify.com:7361000000011', 'shopify', 'upgrade-fixture.myshopify.com', '7361000000011', '#0011', 'approved', NULL, 'approved', 'redeemer@example.com', '+12125550177', '2026-11-23 17:25:50.554+00', NULL, NULL, NULL, 5, 1, '{"facts": ["placed", "paid", "fulfilled"], "refunds": {}, "erasedAt": null, "snapshot": {"test": false, "total": {"amount": "120.00", "currency": "USD"}, "source": "web", "customer": {"name": "Rae Deemer", "email": "redeemer@example.com", "mobile": "+12125550177"}, "subtotal": "120.00", "orderName": "#0011", "attributes": {}, "landingSite": "/collections/all?utm_source=newsletter", "discountCodes": [], "protectedDataHidden": false}, "deliveries": ["shopify:b54557e4-bdd9-4b37-8a5f-bf7d70b00046"], "firstSeenAt": "2026-11-23T17:25:50.530Z", "snapshotFrom": {"total": "2026-11-20T14:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00046", "source": "2026-11-20T14:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00046", "subtotal": "2026-11-20T14:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00046", "orderName": "2026-11-20T14:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00046", "landingSite": "2026-11-20T14:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00046", "customer.name": "2026-11-20T14:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00046", "customer.email": "2026-11-20T14:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00046", "customer.mobile": "2026-11-20T14:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00046", "protectedDataHidden": "2026-11-20T14:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00046"}}', '{"work": {"held": {}, "retryAt": null, "attempts": 0, "lastError": null, "firstFailureAt": null}, "calls": [{"at": "2026-11-23T17:25:50.549Z", "message": "Points earned", "outcome": "success", "attempts": 1, "operation": "earn"}, {"at": "2026-11-23T17:25:50.554Z", "message": "Points updated", "outcome": "success", "attempts": 1, "operation": "approve"}], "target": {"state": "approved"}, "upstream": {"points": "approved", "earnedAt": "2026-11-23T17:25:50.549Z", "lpOrderId": "7361000000011", "conversion": "none", "redemption": "none", "earnActivityId": "1"}}', 'live');
INSERT INTO public.lb_orders VALUES ('shopify:upgrade-fixture.myshopify.com:7361000000012', 'shopify', 'upgrade-fixture.myshopify.com', '7361000000012', '#0012', 'earned', NULL, 'earned', 'redeemer@example.com', '+12125550177', '2026-11-23 17:25:50.615+00', NULL, NULL, NULL, 6, 1, '{"facts": ["placed", "paid"], "refunds": {}, "erasedAt": null, "snapshot": {"test": false, "total": {"amount": "120.00", "currency": "USD"}, "source": "web", "customer": {"name": "Rae Deemer", "email": "redeemer@example.com", "mobile": "+12125550177"}, "subtotal": "120.00", "orderName": "#0012", "attributes": {}, "landingSite": "/collections/all?utm_source=newsletter", "discountCodes": [{"code": "LOYALTY-RAE", "amount": "0.50"}], "protectedDataHidden": false}, "deliveries": ["shopify:b54557e4-bdd9-4b37-8a5f-bf7d70b00047"], "firstSeenAt": "2026-11-23T17:25:50.571Z", "snapshotFrom": {"total": "2026-11-20T15:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00047", "source": "2026-11-20T15:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00047", "subtotal": "2026-11-20T15:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00047", "orderName": "2026-11-20T15:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00047", "landingSite": "2026-11-20T15:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00047", "customer.name": "2026-11-20T15:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00047", "discountCodes": "2026-11-20T15:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00047", "customer.email": "2026-11-20T15:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00047", "customer.mobile": "2026-11-20T15:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00047", "protectedDataHidden": "2026-11-20T15:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00047"}}', '{"work": {"held": {}, "retryAt": null, "attempts": 0, "lastError": null, "firstFailureAt": null}, "calls": [{"at": "2026-11-23T17:25:50.596Z", "message": "Points earned", "outcome": "success", "attempts": 1, "operation": "earn"}, {"at": "2026-11-23T17:25:50.615Z", "message": "Points redeemed", "outcome": "success", "attempts": 1, "operation": "redeem"}], "target": {"state": "earned"}, "upstream": {"points": "earned", "earnedAt": "2026-11-23T17:25:50.596Z", "lpOrderId": "7361000000012", "conversion": "none", "redemption": "sent", "earnActivityId": "1", "redeemedPoints": 50}}', 'live');
INSERT INTO public.lb_orders VALUES ('woocommerce:shop.upgrade-fixture.example:5202', 'woocommerce', 'shop.upgrade-fixture.example', '5202', '#5202', 'approved', NULL, 'approved', 'katherine@example.com', '+33612345678', '2026-11-23 17:25:50.868+00', NULL, NULL, NULL, 7, 2, '{"facts": ["placed", "paid", "fulfilled"], "refunds": {}, "erasedAt": null, "snapshot": {"test": false, "total": {"amount": "64.00", "currency": "EUR"}, "source": "checkout", "customer": {"name": "Katherine Johnson", "email": "katherine@example.com", "mobile": "+33612345678"}, "subtotal": "64", "orderName": "#5202", "attributes": {}, "landingSite": null, "discountCodes": [], "protectedDataHidden": false}, "deliveries": ["woocommerce:shop.upgrade-fixture.example:1:5202:2026-11-23T16:35:50:processing:a7292791593fba9eba9a2ddf31b1d496", "woocommerce:shop.upgrade-fixture.example:2:5202:2026-11-23T16:45:50:completed:00b9062f13997fbc5fa87156b7d6be19"], "firstSeenAt": "2026-11-23T17:25:50.760Z", "snapshotFrom": {"total": "2026-11-23T16:45:50.000Z|woocommerce:2:5202:2026-11-23T16:45:50:completed", "source": "2026-11-23T16:45:50.000Z|woocommerce:2:5202:2026-11-23T16:45:50:completed", "subtotal": "2026-11-23T16:45:50.000Z|woocommerce:2:5202:2026-11-23T16:45:50:completed", "orderName": "2026-11-23T16:45:50.000Z|woocommerce:2:5202:2026-11-23T16:45:50:completed", "customer.name": "2026-11-23T16:45:50.000Z|woocommerce:2:5202:2026-11-23T16:45:50:completed", "customer.email": "2026-11-23T16:45:50.000Z|woocommerce:2:5202:2026-11-23T16:45:50:completed", "customer.mobile": "2026-11-23T16:45:50.000Z|woocommerce:2:5202:2026-11-23T16:45:50:completed", "protectedDataHidden": "2026-11-23T16:45:50.000Z|woocommerce:2:5202:2026-11-23T16:45:50:completed"}}', '{"work": {"held": {}, "retryAt": null, "attempts": 0, "lastError": null, "firstFailureAt": null}, "calls": [{"at": "2026-11-23T17:25:50.818Z", "message": "Points earned", "outcome": "success", "attempts": 1, "operation": "earn"}, {"at": "2026-11-23T17:25:50.868Z", "message": "Points updated", "outcome": "success", "attempts": 1, "operation": "approve"}], "target": {"state": "approved"}, "upstream": {"points": "approved", "earnedAt": "2026-11-23T17:25:50.818Z", "lpOrderId": "5202", "conversion": "none", "redemption": "none", "earnActivityId": "1"}}', 'live');
INSERT INTO public.lb_orders VALUES ('bigcommerce:upgr01:6203', 'bigcommerce', 'upgr01', '6203', '#6203', 'cancelled', NULL, 'cancelled', 'dorothy@example.com', '+17575550199', '2026-11-23 17:25:51.036+00', NULL, NULL, NULL, 7, 2, '{"facts": ["placed", "paid", "cancelled"], "refunds": {}, "erasedAt": null, "snapshot": {"test": false, "total": {"amount": "150.0000", "currency": "USD"}, "source": "www", "customer": {"name": "Dorothy Vaughan", "email": "dorothy@example.com", "mobile": "+17575550199"}, "subtotal": "150", "orderName": "#6203", "attributes": {}, "landingSite": null, "discountCodes": [], "protectedDataHidden": false}, "deliveries": ["bigcommerce:msg_524e096c-e2e0-40fc-a5a3-725b08c93abf", "bigcommerce:msg_c78825ea-0247-4565-b7e5-63070ce682da"], "firstSeenAt": "2026-11-23T17:25:50.941Z", "snapshotFrom": {"total": "2026-11-19T21:00:00.000Z|bigcommerce:msg_524e096c-e2e0-40fc-a5a3-725b08c93abf", "source": "2026-11-19T21:00:00.000Z|bigcommerce:msg_524e096c-e2e0-40fc-a5a3-725b08c93abf", "subtotal": "2026-11-19T21:00:00.000Z|bigcommerce:msg_524e096c-e2e0-40fc-a5a3-725b08c93abf", "orderName": "2026-11-19T21:00:00.000Z|bigcommerce:msg_524e096c-e2e0-40fc-a5a3-725b08c93abf", "customer.name": "2026-11-19T21:00:00.000Z|bigcommerce:msg_524e096c-e2e0-40fc-a5a3-725b08c93abf", "customer.email": "2026-11-19T21:00:00.000Z|bigcommerce:msg_524e096c-e2e0-40fc-a5a3-725b08c93abf", "customer.mobile": "2026-11-19T21:00:00.000Z|bigcommerce:msg_524e096c-e2e0-40fc-a5a3-725b08c93abf", "protectedDataHidden": "2026-11-19T21:00:00.000Z|bigcommerce:msg_524e096c-e2e0-40fc-a5a3-725b08c93abf"}}', '{"work": {"held": {}, "retryAt": null, "attempts": 0, "lastError": null, "firstFailureAt": null}, "calls": [{"at": "2026-11-23T17:25:50.971Z", "message": "Points earned", "outcome": "success", "attempts": 1, "operation": "earn"}, {"at": "2026-11-23T17:25:51.036Z", "message": "Points updated", "outcome": "success", "attempts": 1, "operation": "cancel"}], "target": {"state": "cancelled"}, "upstream": {"points": "cancelled", "earnedAt": "2026-11-23T17:25:50.971Z", "lpOrderId": "96203", "conversion": "none", "redemption": "none", "earnActivityId": "1"}}', 'live');
INSERT INTO public.lb_orders VALUES ('shopify:upgrade-fixture.myshopify.com:7361000000007', 'shopify', 'upgrade-fixture.myshopify.com', '7361000000007', '#0007', 'earned', NULL, 'earned', 'grace@example.com', '+12125550142', '2026-11-23 17:25:51.209+00', '2026-11-23 17:25:51.209279+00', NULL, NULL, 6, 3, '{"facts": ["placed", "paid", "fulfilled"], "refunds": {}, "erasedAt": null, "snapshot": {"test": false, "total": {"amount": "120.00", "currency": "USD"}, "source": "web", "customer": {"name": "Grace Hopper", "email": "grace@example.com", "mobile": "+12125550142"}, "subtotal": "120.00", "orderName": "#0007", "attributes": {}, "landingSite": "/collections/all?utm_source=newsletter", "discountCodes": [], "protectedDataHidden": false}, "deliveries": ["shopify:b54557e4-bdd9-4b37-8a5f-bf7d70b00038", "shopify:b54557e4-bdd9-4b37-8a5f-bf7d70b00039", "shopify:b54557e4-bdd9-4b37-8a5f-bf7d70b00056"], "firstSeenAt": "2026-11-23T17:25:50.352Z", "snapshotFrom": {"total": "2026-11-20T16:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00056", "source": "2026-11-20T16:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00056", "subtotal": "2026-11-20T16:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00056", "orderName": "2026-11-20T16:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00056", "landingSite": "2026-11-20T16:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00056", "customer.name": "2026-11-20T16:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00056", "customer.email": "2026-11-20T16:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00056", "customer.mobile": "2026-11-20T16:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00056", "protectedDataHidden": "2026-11-20T16:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00056"}}', '{"work": {"held": {}, "retryAt": null, "attempts": 0, "lastError": null, "firstFailureAt": null}, "calls": [{"at": "2026-11-23T17:25:50.395Z", "message": "Points earned", "outcome": "success", "attempts": 1, "operation": "earn"}], "target": {"state": "earned"}, "upstream": {"points": "earned", "earnedAt": "2026-11-23T17:25:50.395Z", "lpOrderId": "7361000000007", "conversion": "none", "redemption": "none", "earnActivityId": "1"}}', 'live');
INSERT INTO public.lb_orders VALUES ('shopify:upgrade-fixture.myshopify.com:7361000000014', 'shopify', 'upgrade-fixture.myshopify.com', '7361000000014', '#0014', 'approved', NULL, 'approved', 'grace@example.com', '+12125550142', '2026-11-23 17:25:50.668+00', NULL, NULL, NULL, 8, 3, '{"facts": ["placed", "paid", "fulfilled", "partiallyRefunded"], "refunds": {"990014": {"amount": "20.00", "currency": "USD"}}, "erasedAt": null, "snapshot": {"test": false, "total": {"amount": "80.00", "currency": "USD"}, "source": "web", "customer": {"name": "Grace Hopper", "email": "grace@example.com", "mobile": "+12125550142"}, "subtotal": "80.00", "orderName": "#0014", "attributes": {}, "landingSite": "/collections/all?utm_source=newsletter", "discountCodes": [], "protectedDataHidden": false}, "deliveries": ["shopify:b54557e4-bdd9-4b37-8a5f-bf7d70b00049", "shopify:b54557e4-bdd9-4b37-8a5f-bf7d70b00050", "shopify:b54557e4-bdd9-4b37-8a5f-bf7d70b00051"], "firstSeenAt": "2026-11-23T17:25:50.582Z", "snapshotFrom": {"total": "2026-11-20T18:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00051", "source": "2026-11-20T18:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00051", "subtotal": "2026-11-20T18:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00051", "orderName": "2026-11-20T18:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00051", "landingSite": "2026-11-20T18:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00051", "customer.name": "2026-11-20T18:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00051", "customer.email": "2026-11-20T18:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00051", "customer.mobile": "2026-11-20T18:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00051", "protectedDataHidden": "2026-11-20T18:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00051"}}', '{"work": {"held": {}, "retryAt": null, "attempts": 0, "lastError": null, "firstFailureAt": null}, "calls": [{"at": "2026-11-23T17:25:50.621Z", "message": "Points earned", "outcome": "success", "attempts": 1, "operation": "earn"}, {"at": "2026-11-23T17:25:50.668Z", "message": "Points updated", "outcome": "success", "attempts": 1, "operation": "approve"}], "target": {"state": "approved"}, "upstream": {"points": "approved", "earnedAt": "2026-11-23T17:25:50.621Z", "lpOrderId": "7361000000014", "conversion": "none", "redemption": "none", "earnActivityId": "1"}}', 'live');
INSERT INTO public.lb_orders VALUES ('shopify:upgrade-fixture.myshopify.com:7361000000010', 'shopify', 'upgrade-fixture.myshopify.com', '7361000000010', '#0010', 'approved', NULL, 'approved', 'grace@example.com', '+12125550142', '2026-11-23 17:25:50.551+00', NULL, NULL, NULL, 10, 2, '{"facts": ["placed", "paid", "fulfilled"], "refunds": {}, "erasedAt": null, "snapshot": {"test": false, "total": {"amount": "89.50", "currency": "USD"}, "source": "web", "customer": {"name": "Grace Hopper", "email": "grace@example.com", "mobile": "+12125550142"}, "subtotal": "89.50", "orderName": "#0010", "attributes": {}, "landingSite": "/products/compiler?utm_source=friend&loyalty_campaign=21&loyalty_referrer=ANNA-7", "discountCodes": [], "protectedDataHidden": false}, "deliveries": ["shopify:b54557e4-bdd9-4b37-8a5f-bf7d70b00044", "shopify:b54557e4-bdd9-4b37-8a5f-bf7d70b00045"], "firstSeenAt": "2026-11-23T17:25:50.469Z", "snapshotFrom": {"total": "2026-11-20T16:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00045", "source": "2026-11-20T16:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00045", "subtotal": "2026-11-20T16:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00045", "orderName": "2026-11-20T16:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00045", "landingSite": "2026-11-20T16:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00045", "customer.name": "2026-11-20T16:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00045", "customer.email": "2026-11-20T16:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00045", "customer.mobile": "2026-11-20T16:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00045", "protectedDataHidden": "2026-11-20T16:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00045"}}', '{"work": {"held": {}, "retryAt": null, "attempts": 0, "lastError": null, "firstFailureAt": null}, "calls": [{"at": "2026-11-23T17:25:50.497Z", "message": "Points earned", "outcome": "success", "attempts": 1, "operation": "earn"}, {"at": "2026-11-23T17:25:50.508Z", "message": "Conversion recorded", "outcome": "success", "attempts": 1, "operation": "conversion"}, {"at": "2026-11-23T17:25:50.544Z", "message": "Points updated", "outcome": "success", "attempts": 1, "operation": "approve"}, {"at": "2026-11-23T17:25:50.551Z", "message": "Order successfully approved", "outcome": "success", "attempts": 1, "operation": "approveConversion"}], "target": {"state": "approved"}, "upstream": {"points": "approved", "earnedAt": "2026-11-23T17:25:50.497Z", "lpOrderId": "7361000000010", "conversion": "sent", "redemption": "none", "earnActivityId": "1", "conversionSentAt": "2026-11-23T17:25:50.508Z", "conversionStatus": "approved", "conversionCampaignId": 21}}', 'live');
INSERT INTO public.lb_orders VALUES ('shopify:upgrade-fixture.myshopify.com:7361000000015', 'shopify', 'upgrade-fixture.myshopify.com', '7361000000015', '#0015', 'earned', NULL, 'none', 'grace@example.com', '+12125550142', '2026-11-23 17:25:50.689+00', NULL, NULL, NULL, 4, 1, '{"facts": ["placed", "paid"], "refunds": {}, "erasedAt": null, "snapshot": {"test": false, "total": {"amount": "120.00", "currency": "USD"}, "source": "web", "customer": {"name": "Grace Hopper", "email": "grace@example.com", "mobile": "+12125550142"}, "subtotal": "120.00", "orderName": "#0015", "attributes": {}, "landingSite": "/collections/all?utm_source=newsletter", "discountCodes": [], "protectedDataHidden": false}, "deliveries": ["shopify:b54557e4-bdd9-4b37-8a5f-bf7d70b00054"], "firstSeenAt": "2026-11-23T17:25:50.689Z", "snapshotFrom": {"total": "2026-11-20T14:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00054", "source": "2026-11-20T14:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00054", "subtotal": "2026-11-20T14:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00054", "orderName": "2026-11-20T14:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00054", "landingSite": "2026-11-20T14:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00054", "customer.name": "2026-11-20T14:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00054", "customer.email": "2026-11-20T14:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00054", "customer.mobile": "2026-11-20T14:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00054", "protectedDataHidden": "2026-11-20T14:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00054"}}', '{"work": {"held": {"earn": "2a8d0cdb-45d9-46c1-a825-3173c65726f5"}, "retryAt": null, "attempts": 0, "lastError": "400 Invalid Source: injected fault", "firstFailureAt": null}, "calls": [{"at": "2026-11-23T17:25:50.707Z", "message": "400 Invalid Source: injected fault", "outcome": "failed", "attempts": 1, "operation": "earn", "httpStatus": 400}], "target": {"state": "earned"}, "upstream": {"points": "none", "earnedAt": null, "lpOrderId": "7361000000015", "conversion": "none", "redemption": "none", "earnActivityId": "1"}}', 'live');
INSERT INTO public.lb_orders VALUES ('woocommerce:shop.upgrade-fixture.example:5201', 'woocommerce', 'shop.upgrade-fixture.example', '5201', '#5201', 'earned', NULL, 'earned', 'katherine@example.com', '+33612345678', '2026-11-23 17:25:50.779+00', NULL, NULL, NULL, 4, 1, '{"facts": ["placed", "paid"], "refunds": {}, "erasedAt": null, "snapshot": {"test": false, "total": {"amount": "64.00", "currency": "EUR"}, "source": "checkout", "customer": {"name": "Katherine Johnson", "email": "katherine@example.com", "mobile": "+33612345678"}, "subtotal": "64", "orderName": "#5201", "attributes": {}, "landingSite": null, "discountCodes": [], "protectedDataHidden": false}, "deliveries": ["woocommerce:shop.upgrade-fixture.example:1:5201:2026-11-23T16:35:50:processing:1378a7f90d12e7df09cfb65698897a18"], "firstSeenAt": "2026-11-23T17:25:50.755Z", "snapshotFrom": {"total": "2026-11-23T16:35:50.000Z|woocommerce:1:5201:2026-11-23T16:35:50:processing", "source": "2026-11-23T16:35:50.000Z|woocommerce:1:5201:2026-11-23T16:35:50:processing", "subtotal": "2026-11-23T16:35:50.000Z|woocommerce:1:5201:2026-11-23T16:35:50:processing", "orderName": "2026-11-23T16:35:50.000Z|woocommerce:1:5201:2026-11-23T16:35:50:processing", "customer.name": "2026-11-23T16:35:50.000Z|woocommerce:1:5201:2026-11-23T16:35:50:processing", "customer.email": "2026-11-23T16:35:50.000Z|woocommerce:1:5201:2026-11-23T16:35:50:processing", "customer.mobile": "2026-11-23T16:35:50.000Z|woocommerce:1:5201:2026-11-23T16:35:50:processing", "protectedDataHidden": "2026-11-23T16:35:50.000Z|woocommerce:1:5201:2026-11-23T16:35:50:processing"}}', '{"work": {"held": {}, "retryAt": null, "attempts": 0, "lastError": null, "firstFailureAt": null}, "calls": [{"at": "2026-11-23T17:25:50.779Z", "message": "Points earned", "outcome": "success", "attempts": 1, "operation": "earn"}], "target": {"state": "earned"}, "upstream": {"points": "earned", "earnedAt": "2026-11-23T17:25:50.779Z", "lpOrderId": "5201", "conversion": "none", "redemption": "none", "earnActivityId": "1"}}', 'live');
INSERT INTO public.lb_orders VALUES ('woocommerce:shop.upgrade-fixture.example:5204', 'woocommerce', 'shop.upgrade-fixture.example', '5204', '#5204', 'void', NULL, 'none', 'katherine@example.com', '+33612345678', '2026-11-23 17:25:50.866+00', NULL, NULL, NULL, 4, 2, '{"facts": ["placed", "cancelled"], "refunds": {}, "erasedAt": null, "snapshot": {"test": false, "total": {"amount": "64.00", "currency": "EUR"}, "source": "checkout", "customer": {"name": "Katherine Johnson", "email": "katherine@example.com", "mobile": "+33612345678"}, "subtotal": "64", "orderName": "#5204", "attributes": {}, "landingSite": null, "discountCodes": [], "protectedDataHidden": false}, "deliveries": ["woocommerce:shop.upgrade-fixture.example:1:5204:2026-11-23T16:35:50:pending:548b21a9bd0ca726b2946da4e7d0d1cc", "woocommerce:shop.upgrade-fixture.example:2:5204:2026-11-23T16:45:50:cancelled:ef423402a642b039d9cd533ef30841a2"], "firstSeenAt": "2026-11-23T17:25:50.776Z", "snapshotFrom": {"total": "2026-11-23T16:45:50.000Z|woocommerce:2:5204:2026-11-23T16:45:50:cancelled", "source": "2026-11-23T16:45:50.000Z|woocommerce:2:5204:2026-11-23T16:45:50:cancelled", "subtotal": "2026-11-23T16:45:50.000Z|woocommerce:2:5204:2026-11-23T16:45:50:cancelled", "orderName": "2026-11-23T16:45:50.000Z|woocommerce:2:5204:2026-11-23T16:45:50:cancelled", "customer.name": "2026-11-23T16:45:50.000Z|woocommerce:2:5204:2026-11-23T16:45:50:cancelled", "customer.email": "2026-11-23T16:45:50.000Z|woocommerce:2:5204:2026-11-23T16:45:50:cancelled", "customer.mobile": "2026-11-23T16:45:50.000Z|woocommerce:2:5204:2026-11-23T16:45:50:cancelled", "protectedDataHidden": "2026-11-23T16:45:50.000Z|woocommerce:2:5204:2026-11-23T16:45:50:cancelled"}}', '{"work": {"held": {}, "retryAt": null, "attempts": 0, "lastError": null, "firstFailureAt": null}, "calls": [], "target": {"state": "void"}, "upstream": {"points": "none", "earnedAt": null, "conversion": "none", "redemption": "none"}}', 'live');
INSERT INTO public.lb_orders VALUES ('woocommerce:shop.upgrade-fixture.example:5205', 'woocommerce', 'shop.upgrade-fixture.example', '5205', '#5205', 'earned', NULL, 'earned', 'katherine@example.com', '+33612345678', '2026-11-23 17:25:50.83+00', NULL, NULL, NULL, 6, 1, '{"facts": ["placed", "paid"], "refunds": {}, "erasedAt": null, "snapshot": {"test": false, "total": {"amount": "64.00", "currency": "EUR"}, "source": "checkout", "customer": {"name": "Katherine Johnson", "email": "katherine@example.com", "mobile": "+33612345678"}, "subtotal": "64", "orderName": "#5205", "attributes": {"loyalty_campaign": "21", "loyalty_referrer": "BOB-3"}, "landingSite": null, "discountCodes": [], "protectedDataHidden": false}, "deliveries": ["woocommerce:shop.upgrade-fixture.example:1:5205:2026-11-23T16:35:50:processing:6b1640e73bacf55eaff68637642923e9"], "firstSeenAt": "2026-11-23T17:25:50.786Z", "snapshotFrom": {"total": "2026-11-23T16:35:50.000Z|woocommerce:1:5205:2026-11-23T16:35:50:processing", "source": "2026-11-23T16:35:50.000Z|woocommerce:1:5205:2026-11-23T16:35:50:processing", "subtotal": "2026-11-23T16:35:50.000Z|woocommerce:1:5205:2026-11-23T16:35:50:processing", "orderName": "2026-11-23T16:35:50.000Z|woocommerce:1:5205:2026-11-23T16:35:50:processing", "attributes": "2026-11-23T16:35:50.000Z|woocommerce:1:5205:2026-11-23T16:35:50:processing", "customer.name": "2026-11-23T16:35:50.000Z|woocommerce:1:5205:2026-11-23T16:35:50:processing", "customer.email": "2026-11-23T16:35:50.000Z|woocommerce:1:5205:2026-11-23T16:35:50:processing", "customer.mobile": "2026-11-23T16:35:50.000Z|woocommerce:1:5205:2026-11-23T16:35:50:processing", "protectedDataHidden": "2026-11-23T16:35:50.000Z|woocommerce:1:5205:2026-11-23T16:35:50:processing"}}', '{"work": {"held": {}, "retryAt": null, "attempts": 0, "lastError": null, "firstFailureAt": null}, "calls": [{"at": "2026-11-23T17:25:50.823Z", "message": "Points earned", "outcome": "success", "attempts": 1, "operation": "earn"}, {"at": "2026-11-23T17:25:50.830Z", "message": "Conversion recorded", "outcome": "success", "attempts": 1, "operation": "conversion"}], "target": {"state": "earned"}, "upstream": {"points": "earned", "earnedAt": "2026-11-23T17:25:50.823Z", "lpOrderId": "5205", "conversion": "sent", "redemption": "none", "earnActivityId": "1", "conversionSentAt": "2026-11-23T17:25:50.830Z", "conversionStatus": "pending", "conversionCampaignId": 21}}', 'live');
INSERT INTO public.lb_orders VALUES ('woocommerce:shop.upgrade-fixture.example:5206', 'woocommerce', 'shop.upgrade-fixture.example', '5206', '#5206', 'new', NULL, 'none', 'katherine@example.com', '+33612345678', '2026-11-23 17:25:50.791+00', NULL, NULL, NULL, 2, 1, '{"facts": ["placed"], "refunds": {}, "erasedAt": null, "snapshot": {"test": false, "total": {"amount": "64.00", "currency": "EUR"}, "source": "checkout", "customer": {"name": "Katherine Johnson", "email": "katherine@example.com", "mobile": "+33612345678"}, "subtotal": "64", "orderName": "#5206", "attributes": {}, "landingSite": null, "discountCodes": [], "protectedDataHidden": false}, "deliveries": ["woocommerce:shop.upgrade-fixture.example:1:5206:2026-11-23T16:35:50:on-hold:7ac5ca240a19eac56ab90afadc7ea0e7"], "firstSeenAt": "2026-11-23T17:25:50.791Z", "snapshotFrom": {"total": "2026-11-23T16:35:50.000Z|woocommerce:1:5206:2026-11-23T16:35:50:on-hold", "source": "2026-11-23T16:35:50.000Z|woocommerce:1:5206:2026-11-23T16:35:50:on-hold", "subtotal": "2026-11-23T16:35:50.000Z|woocommerce:1:5206:2026-11-23T16:35:50:on-hold", "orderName": "2026-11-23T16:35:50.000Z|woocommerce:1:5206:2026-11-23T16:35:50:on-hold", "customer.name": "2026-11-23T16:35:50.000Z|woocommerce:1:5206:2026-11-23T16:35:50:on-hold", "customer.email": "2026-11-23T16:35:50.000Z|woocommerce:1:5206:2026-11-23T16:35:50:on-hold", "customer.mobile": "2026-11-23T16:35:50.000Z|woocommerce:1:5206:2026-11-23T16:35:50:on-hold", "protectedDataHidden": "2026-11-23T16:35:50.000Z|woocommerce:1:5206:2026-11-23T16:35:50:on-hold"}}', '{"work": {"held": {}, "retryAt": null, "attempts": 0, "lastError": null, "firstFailureAt": null}, "calls": [], "target": {"state": "new"}, "upstream": {"points": "none", "earnedAt": null, "conversion": "none", "redemption": "none"}}', 'live');
INSERT INTO public.lb_orders VALUES ('woocommerce:shop.upgrade-fixture.example:5203', 'woocommerce', 'shop.upgrade-fixture.example', '5203', '#5203', 'cancelled', NULL, 'cancelled', 'katherine@example.com', '+33612345678', '2026-11-23 17:25:50.909+00', NULL, NULL, NULL, 10, 3, '{"facts": ["placed", "paid", "fulfilled", "partiallyRefunded", "fullyRefunded"], "refunds": {"3301": {"amount": "64.00", "currency": null}}, "erasedAt": null, "snapshot": {"test": false, "total": {"amount": "64.00", "currency": "EUR"}, "source": "checkout", "customer": {"name": "Katherine Johnson", "email": "katherine@example.com", "mobile": "+33612345678"}, "subtotal": "64", "orderName": "#5203", "attributes": {}, "landingSite": null, "discountCodes": [], "protectedDataHidden": false}, "deliveries": ["woocommerce:shop.upgrade-fixture.example:1:5203:2026-11-23T16:35:50:processing:d191aacc968d0a26eb4b5312e7cb325d", "woocommerce:shop.upgrade-fixture.example:2:5203:2026-11-23T16:45:50:completed:d7f0d2b2cc7ed45168df4afeaefb8f5b", "woocommerce:shop.upgrade-fixture.example:2:5203:2026-11-23T16:55:50:refunded:e53bb7cfc190ae782e578442521ca269"], "firstSeenAt": "2026-11-23T17:25:50.766Z", "snapshotFrom": {"total": "2026-11-23T16:55:50.000Z|woocommerce:2:5203:2026-11-23T16:55:50:refunded", "source": "2026-11-23T16:55:50.000Z|woocommerce:2:5203:2026-11-23T16:55:50:refunded", "subtotal": "2026-11-23T16:55:50.000Z|woocommerce:2:5203:2026-11-23T16:55:50:refunded", "orderName": "2026-11-23T16:55:50.000Z|woocommerce:2:5203:2026-11-23T16:55:50:refunded", "customer.name": "2026-11-23T16:55:50.000Z|woocommerce:2:5203:2026-11-23T16:55:50:refunded", "customer.email": "2026-11-23T16:55:50.000Z|woocommerce:2:5203:2026-11-23T16:55:50:refunded", "customer.mobile": "2026-11-23T16:55:50.000Z|woocommerce:2:5203:2026-11-23T16:55:50:refunded", "protectedDataHidden": "2026-11-23T16:55:50.000Z|woocommerce:2:5203:2026-11-23T16:55:50:refunded"}}', '{"work": {"held": {}, "retryAt": null, "attempts": 0, "lastError": null, "firstFailureAt": null}, "calls": [{"at": "2026-11-23T17:25:50.804Z", "message": "Points earned", "outcome": "success", "attempts": 1, "operation": "earn"}, {"at": "2026-11-23T17:25:50.881Z", "message": "Points updated", "outcome": "success", "attempts": 1, "operation": "approve"}, {"at": "2026-11-23T17:25:50.909Z", "message": "Points updated", "outcome": "success", "attempts": 1, "operation": "cancel"}], "target": {"state": "cancelled"}, "upstream": {"points": "cancelled", "earnedAt": "2026-11-23T17:25:50.804Z", "lpOrderId": "5203", "conversion": "none", "redemption": "none", "earnActivityId": "1"}}', 'live');
INSERT INTO public.lb_orders VALUES ('bigcommerce:upgr01:6201', 'bigcommerce', 'upgr01', '6201', '#6201', 'earned', NULL, 'earned', 'dorothy@example.com', '+17575550199', '2026-11-23 17:25:50.961+00', NULL, NULL, NULL, 4, 1, '{"facts": ["placed", "paid"], "refunds": {}, "erasedAt": null, "snapshot": {"test": false, "total": {"amount": "150.0000", "currency": "USD"}, "source": "www", "customer": {"name": "Dorothy Vaughan", "email": "dorothy@example.com", "mobile": "+17575550199"}, "subtotal": "150", "orderName": "#6201", "attributes": {}, "landingSite": null, "discountCodes": [], "protectedDataHidden": false}, "deliveries": ["bigcommerce:msg_ead1f0cd-14f7-4090-97f3-4169aed906e7"], "firstSeenAt": "2026-11-23T17:25:50.929Z", "snapshotFrom": {"total": "2026-11-19T21:00:00.000Z|bigcommerce:msg_ead1f0cd-14f7-4090-97f3-4169aed906e7", "source": "2026-11-19T21:00:00.000Z|bigcommerce:msg_ead1f0cd-14f7-4090-97f3-4169aed906e7", "subtotal": "2026-11-19T21:00:00.000Z|bigcommerce:msg_ead1f0cd-14f7-4090-97f3-4169aed906e7", "orderName": "2026-11-19T21:00:00.000Z|bigcommerce:msg_ead1f0cd-14f7-4090-97f3-4169aed906e7", "customer.name": "2026-11-19T21:00:00.000Z|bigcommerce:msg_ead1f0cd-14f7-4090-97f3-4169aed906e7", "customer.email": "2026-11-19T21:00:00.000Z|bigcommerce:msg_ead1f0cd-14f7-4090-97f3-4169aed906e7", "customer.mobile": "2026-11-19T21:00:00.000Z|bigcommerce:msg_ead1f0cd-14f7-4090-97f3-4169aed906e7", "protectedDataHidden": "2026-11-19T21:00:00.000Z|bigcommerce:msg_ead1f0cd-14f7-4090-97f3-4169aed906e7"}}', '{"work": {"held": {}, "retryAt": null, "attempts": 0, "lastError": null, "firstFailureAt": null}, "calls": [{"at": "2026-11-23T17:25:50.961Z", "message": "Points earned", "outcome": "success", "attempts": 1, "operation": "earn"}], "target": {"state": "earned"}, "upstream": {"points": "earned", "earnedAt": "2026-11-23T17:25:50.961Z", "lpOrderId": "96201", "conversion": "none", "redemption": "none", "earnActivityId": "1"}}', 'live');
INSERT INTO public.lb_orders VALUES ('bigcommerce:upgr01:6206', 'bigcommerce', 'upgr01', '6206', '#6206', 'new', NULL, 'none', 'dorothy@example.com', '+17575550199', '2026-11-23 17:25:50.961+00', NULL, NULL, NULL, 2, 1, '{"facts": ["placed"], "refunds": {}, "erasedAt": null, "snapshot": {"test": false, "total": {"amount": "150.0000", "currency": "USD"}, "source": "www", "customer": {"name": "Dorothy Vaughan", "email": "dorothy@example.com", "mobile": "+17575550199"}, "subtotal": "150", "orderName": "#6206", "attributes": {}, "landingSite": null, "discountCodes": [], "protectedDataHidden": false}, "deliveries": ["bigcommerce:msg_69e9e1c8-1bb0-4fe8-aa82-ec3d624363f7"], "firstSeenAt": "2026-11-23T17:25:50.961Z", "snapshotFrom": {"total": "2026-11-19T17:00:00.000Z|bigcommerce:msg_69e9e1c8-1bb0-4fe8-aa82-ec3d624363f7", "source": "2026-11-19T17:00:00.000Z|bigcommerce:msg_69e9e1c8-1bb0-4fe8-aa82-ec3d624363f7", "subtotal": "2026-11-19T17:00:00.000Z|bigcommerce:msg_69e9e1c8-1bb0-4fe8-aa82-ec3d624363f7", "orderName": "2026-11-19T17:00:00.000Z|bigcommerce:msg_69e9e1c8-1bb0-4fe8-aa82-ec3d624363f7", "customer.name": "2026-11-19T17:00:00.000Z|bigcommerce:msg_69e9e1c8-1bb0-4fe8-aa82-ec3d624363f7", "customer.email": "2026-11-19T17:00:00.000Z|bigcommerce:msg_69e9e1c8-1bb0-4fe8-aa82-ec3d624363f7", "customer.mobile": "2026-11-19T17:00:00.000Z|bigcommerce:msg_69e9e1c8-1bb0-4fe8-aa82-ec3d624363f7", "protectedDataHidden": "2026-11-19T17:00:00.000Z|bigcommerce:msg_69e9e1c8-1bb0-4fe8-aa82-ec3d624363f7"}}', '{"work": {"held": {}, "retryAt": null, "attempts": 0, "lastError": null, "firstFailureAt": null}, "calls": [], "target": {"state": "new"}, "upstream": {"points": "none", "earnedAt": null, "conversion": "none", "redemption": "none"}}', 'live');
INSERT INTO public.lb_orders VALUES ('bigcommerce:upgr01:6204', 'bigcommerce', 'upgr01', '6204', '#6204', 'approved', NULL, 'approved', 'dorothy@example.com', '+17575550199', '2026-11-23 17:25:51.044+00', NULL, NULL, NULL, 10, 2, '{"facts": ["placed", "paid", "fulfilled"], "refunds": {}, "erasedAt": null, "snapshot": {"test": false, "total": {"amount": "140.0000", "currency": "USD"}, "source": "www", "customer": {"name": "Dorothy Vaughan", "email": "dorothy@example.com", "mobile": "+17575550199"}, "subtotal": "130", "orderName": "#6204", "attributes": {}, "landingSite": null, "discountCodes": [{"code": "REF-CAROL9", "amount": "10"}], "protectedDataHidden": false}, "deliveries": ["bigcommerce:msg_296a1d15-f960-4a53-9dbb-ebf0b6dfcd0d", "bigcommerce:msg_d693ef74-7461-42fc-afde-376132163f11"], "firstSeenAt": "2026-11-23T17:25:50.947Z", "snapshotFrom": {"total": "2026-11-19T21:00:00.000Z|bigcommerce:msg_296a1d15-f960-4a53-9dbb-ebf0b6dfcd0d", "source": "2026-11-19T21:00:00.000Z|bigcommerce:msg_296a1d15-f960-4a53-9dbb-ebf0b6dfcd0d", "subtotal": "2026-11-19T21:00:00.000Z|bigcommerce:msg_296a1d15-f960-4a53-9dbb-ebf0b6dfcd0d", "orderName": "2026-11-19T21:00:00.000Z|bigcommerce:msg_296a1d15-f960-4a53-9dbb-ebf0b6dfcd0d", "customer.name": "2026-11-19T21:00:00.000Z|bigcommerce:msg_296a1d15-f960-4a53-9dbb-ebf0b6dfcd0d", "discountCodes": "2026-11-19T21:00:00.000Z|bigcommerce:msg_296a1d15-f960-4a53-9dbb-ebf0b6dfcd0d", "customer.email": "2026-11-19T21:00:00.000Z|bigcommerce:msg_296a1d15-f960-4a53-9dbb-ebf0b6dfcd0d", "customer.mobile": "2026-11-19T21:00:00.000Z|bigcommerce:msg_296a1d15-f960-4a53-9dbb-ebf0b6dfcd0d", "protectedDataHidden": "2026-11-19T21:00:00.000Z|bigcommerce:msg_296a1d15-f960-4a53-9dbb-ebf0b6dfcd0d"}}', '{"work": {"held": {}, "retryAt": null, "attempts": 0, "lastError": null, "firstFailureAt": null}, "calls": [{"at": "2026-11-23T17:25:50.979Z", "message": "Points earned", "outcome": "success", "attempts": 1, "operation": "earn"}, {"at": "2026-11-23T17:25:50.984Z", "message": "Conversion recorded", "outcome": "success", "attempts": 1, "operation": "conversion"}, {"at": "2026-11-23T17:25:51.040Z", "message": "Points updated", "outcome": "success", "attempts": 1, "operation": "approve"}, {"at": "2026-11-23T17:25:51.044Z", "message": "Order successfully approved", "outcome": "success", "attempts": 1, "operation": "approveConversion"}], "target": {"state": "approved"}, "upstream": {"points": "approved", "earnedAt": "2026-11-23T17:25:50.979Z", "lpOrderId": "96204", "conversion": "sent", "redemption": "none", "earnActivityId": "1", "conversionSentAt": "2026-11-23T17:25:50.984Z", "conversionStatus": "approved", "conversionCampaignId": 21}}', 'live');
INSERT INTO public.lb_orders VALUES ('shopify:upgrade-fixture.myshopify.com:7361000000017', 'shopify', 'upgrade-fixture.myshopify.com', '7361000000017', '#0017', 'earned', NULL, 'earning', 'grace@example.com', '+12125550142', '2026-11-23 17:25:51.118+00', '2026-11-23 17:26:51.134+00', NULL, NULL, 3, 1, '{"facts": ["placed", "paid"], "refunds": {}, "erasedAt": null, "snapshot": {"test": false, "total": {"amount": "120.00", "currency": "USD"}, "source": "web", "customer": {"name": "Grace Hopper", "email": "grace@example.com", "mobile": "+12125550142"}, "subtotal": "120.00", "orderName": "#0017", "attributes": {}, "landingSite": "/collections/all?utm_source=newsletter", "discountCodes": [], "protectedDataHidden": false}, "deliveries": ["shopify:b54557e4-bdd9-4b37-8a5f-bf7d70b00055"], "firstSeenAt": "2026-11-23T17:25:51.118Z", "snapshotFrom": {"total": "2026-11-20T14:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00055", "source": "2026-11-20T14:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00055", "subtotal": "2026-11-20T14:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00055", "orderName": "2026-11-20T14:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00055", "landingSite": "2026-11-20T14:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00055", "customer.name": "2026-11-20T14:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00055", "customer.email": "2026-11-20T14:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00055", "customer.mobile": "2026-11-20T14:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00055", "protectedDataHidden": "2026-11-20T14:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00055"}}', '{"work": {"held": {}, "retryAt": "2026-11-23T17:26:51.134Z", "attempts": 1, "lastError": "503 Service unavailable: injected fault", "firstFailureAt": "2026-11-23T17:25:51.134Z"}, "calls": [{"at": "2026-11-23T17:25:51.134Z", "message": "503 Service unavailable: injected fault", "outcome": "retry", "attempts": 1, "operation": "earn", "httpStatus": 503}], "target": {"state": "earned"}, "upstream": {"points": "earning", "earnedAt": null, "lpOrderId": "7361000000017", "conversion": "none", "redemption": "none", "earnActivityId": "1"}}', 'live');
INSERT INTO public.lb_orders VALUES ('shopify:upgrade-fixture.myshopify.com:7361000000019', 'shopify', 'upgrade-fixture.myshopify.com', '7361000000019', '#0019', 'new', NULL, 'none', 'grace@example.com', '+12125550142', '2026-11-23 17:25:51.212+00', '2026-11-23 17:25:51.211769+00', NULL, NULL, 1, 1, '{"facts": ["placed", "paid"], "refunds": {}, "erasedAt": null, "snapshot": {"test": false, "total": {"amount": "120.00", "currency": "USD"}, "source": "web", "customer": {"name": "Grace Hopper", "email": "grace@example.com", "mobile": "+12125550142"}, "subtotal": "120.00", "orderName": "#0019", "attributes": {}, "landingSite": "/collections/all?utm_source=newsletter", "discountCodes": [], "protectedDataHidden": false}, "deliveries": ["shopify:b54557e4-bdd9-4b37-8a5f-bf7d70b00057"], "firstSeenAt": "2026-11-23T17:25:51.212Z", "snapshotFrom": {"total": "2026-11-20T19:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00057", "source": "2026-11-20T19:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00057", "subtotal": "2026-11-20T19:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00057", "orderName": "2026-11-20T19:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00057", "landingSite": "2026-11-20T19:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00057", "customer.name": "2026-11-20T19:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00057", "customer.email": "2026-11-20T19:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00057", "customer.mobile": "2026-11-20T19:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00057", "protectedDataHidden": "2026-11-20T19:00:00.000Z|b54557e4-bdd9-4b37-8a5f-bf7d70b00057"}}', '{"work": {"held": {}, "retryAt": null, "attempts": 0, "lastError": null, "firstFailureAt": null}, "calls": [], "target": null, "upstream": {"points": "none", "earnedAt": null, "conversion": "none", "redemption": "none"}}', 'live');


--
-- Data for Name: lb_rate_limit; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.lb_rate_limit VALUES ('loyalty:638544f1a5bef012b99ddd4c', 1613, 1795454811134);


--
-- Data for Name: lb_records; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.lb_records VALUES ('session', 'shopify:upgrade-fixture.myshopify.com', '{"mode": "token_exchange", "shop": "upgrade-fixture.myshopify.com", "scope": "read_orders", "platform": "shopify", "expiresAt": "2026-11-23T18:25:50.003Z", "updatedAt": "2026-11-23T17:25:50.003Z", "accessToken": "shpat_FAKE_fixture_7a1c4ad_not_a_real_token", "refreshToken": "shprt_FAKE_fixture_7a1c4ad_not_a_real_token", "refreshTokenExpiresAt": "2027-02-21T17:25:50.003Z"}', '2026-11-23 17:25:50.003633+00');
INSERT INTO public.lb_records VALUES ('shop', 'shopify:upgrade-fixture.myshopify.com', '{"shop": "upgrade-fixture.myshopify.com", "platform": "shopify", "installedAt": "2026-11-23T17:25:50.007Z", "uninstalledAt": null}', '2026-11-23 17:25:50.007175+00');
INSERT INTO public.lb_records VALUES ('session', 'woocommerce:shop.upgrade-fixture.example', '{"url": "https://shop.upgrade-fixture.example", "shop": "shop.upgrade-fixture.example", "keyId": 1, "platform": "woocommerce", "updatedAt": "2026-11-23T17:25:50.137Z", "connectedAt": "2026-11-23T17:25:50.137Z", "consumerKey": "ck_FAKEfixture7a1c4adNotARealKey000000000", "webhookSecret": "y6VmexgFYqwXtYfDNqKXcwAtVKzhNuPyoHHjAvxwUjU", "consumerSecret": "cs_FAKEfixture7a1c4adNotARealSecret000000", "keyPermissions": "read_write"}', '2026-11-23 17:25:50.137507+00');
INSERT INTO public.lb_records VALUES ('session', 'woocommerce-connect:a1c62636e0905c7f1f7573adcb2edfa43a395ba3039455b09a934bc41ef2d775', '{"forShop": "never-finished.upgrade-fixture.example", "purpose": "connect", "platform": "woocommerce", "storeUrl": "https://never-finished.upgrade-fixture.example", "createdAt": "2026-11-23T17:25:50.194Z", "expiresAt": "2026-11-23T17:55:50.194Z"}', '2026-11-23 17:25:50.195817+00');
INSERT INTO public.lb_records VALUES ('session', 'bigcommerce:upgr01', '{"shop": "upgr01", "scope": "store_v2_orders_read_only store_v2_information_read_only", "platform": "bigcommerce", "updatedAt": "2026-11-23T17:25:50.206Z", "accessToken": "bcFAKEfixture7a1c4adNotARealToken", "accountUuid": "12345678-90ab-cdef-1234-567890abcdef", "installedAt": "2026-11-23T17:25:50.206Z", "headerSecret": "GNpv1fGeY38cpfxDTIU7FMsTcxLY0TzBBj42LzW5Y-8"}', '2026-11-23 17:25:50.207895+00');
INSERT INTO public.lb_records VALUES ('shop', 'bigcommerce:upgr01', '{"shop": "upgr01", "platform": "bigcommerce", "installedAt": "2026-11-23T17:25:50.206Z", "uninstalledAt": null}', '2026-11-23 17:25:50.208871+00');
INSERT INTO public.lb_records VALUES ('reconciliation', 'bigcommerce:upgr01', '{"shop": "upgr01", "lastRun": {"since": "2026-11-22T17:25:50.216Z", "until": "2026-11-23T17:25:50.216Z", "errors": [], "failed": 0, "changed": 0, "fetched": 0, "startedAt": "2026-11-23T17:25:50.216Z", "unchanged": 0, "finishedAt": "2026-11-23T17:25:50.220Z"}, "platform": "bigcommerce", "highWaterMark": "2026-11-23T17:25:50.216Z"}', '2026-11-23 17:25:50.221106+00');
INSERT INTO public.lb_records VALUES ('platform-health', 'bigcommerce:upgr01', '{"shop": "upgr01", "healthy": 5, "platform": "bigcommerce", "problems": [], "repaired": ["store/order/created: created hook 1", "store/order/updated: created hook 2", "store/order/statusUpdated: created hook 3", "store/order/refund/created: created hook 4", "store/order/archived: created hook 5"], "checkedAt": "2026-11-23T17:25:50.243Z"}', '2026-11-23 17:25:50.246159+00');
INSERT INTO public.lb_records VALUES ('data-request', 'shopify:upgrade-fixture.myshopify.com:9999', '{"id": "shopify:upgrade-fixture.myshopify.com:9999", "shop": "upgrade-fixture.myshopify.com", "customer": {"id": "7001", "email": "grace@example.com"}, "orderIds": ["7361000000007"], "platform": "shopify", "requestId": "9999", "receivedAt": "2026-11-23T17:25:50.647Z"}', '2026-11-23 17:25:50.648019+00');
INSERT INTO public.lb_records VALUES ('privacy-log', '5665a350-43ab-41b6-8a85-ad1f8e0f062a', '{"at": "2026-11-23T17:25:50.651Z", "id": "5665a350-43ab-41b6-8a85-ad1f8e0f062a", "via": "platform", "shop": "upgrade-fixture.myshopify.com", "type": "data-request", "platform": "shopify"}', '2026-11-23 17:25:50.651185+00');
INSERT INTO public.lb_records VALUES ('adjustment', '552dbc2d-fdca-422d-9796-ec4d6bf1a7cc', '{"at": "2026-11-23T17:25:50.724Z", "by": "fixture-operator", "id": "552dbc2d-fdca-422d-9796-ec4d6bf1a7cc", "kind": "earn", "reason": "goodwill for a late parcel", "message": "Points earned", "outcome": "success", "request": {"name": "Ada Lovelace", "email": "ada@example.com", "mobile": "+447911123456", "reason": "goodwill for a late parcel", "activityId": "1"}, "customer": {"name": "Ada Lovelace", "email": "ada@example.com", "mobile": "+447911123456"}, "activityId": "1"}', '2026-11-23 17:25:50.729569+00');
INSERT INTO public.lb_records VALUES ('reconciliation', 'shopify:upgrade-fixture.myshopify.com', '{"shop": "upgrade-fixture.myshopify.com", "lastRun": {"since": "2026-11-22T17:25:50.731Z", "until": "2026-11-23T17:25:50.731Z", "errors": [], "failed": 0, "changed": 0, "fetched": 0, "startedAt": "2026-11-23T17:25:50.731Z", "unchanged": 0, "finishedAt": "2026-11-23T17:25:50.740Z"}, "platform": "shopify", "highWaterMark": "2026-11-23T17:25:50.731Z"}', '2026-11-23 17:25:50.740585+00');
INSERT INTO public.lb_records VALUES ('platform-health', 'shopify:upgrade-fixture.myshopify.com', '{"shop": "upgrade-fixture.myshopify.com", "scopes": ["read_orders"], "healthy": 10, "platform": "shopify", "problems": [], "repaired": [], "checkedAt": "2026-11-23T17:25:50.746Z"}', '2026-11-23 17:25:50.747335+00');
INSERT INTO public.lb_records VALUES ('platform-health', 'woocommerce:shop.upgrade-fixture.example', '{"shop": "shop.upgrade-fixture.example", "healthy": 4, "platform": "woocommerce", "problems": [], "repaired": [], "checkedAt": "2026-11-23T17:26:06.308Z"}', '2026-11-23 17:26:06.308777+00');
INSERT INTO public.lb_records VALUES ('resync-job', '99419757-983b-4222-bd52-b735eabd30b3', '{"id": "99419757-983b-4222-bd52-b735eabd30b3", "shops": ["upgr01"], "status": "done", "request": {"orderIds": ["6202"]}, "platform": "bigcommerce", "progress": {"errors": [], "failed": 0, "changed": 1, "fetched": 1, "unchanged": 0}, "startedAt": "2026-11-23T17:25:51.053Z", "finishedAt": "2026-11-23T17:25:51.068Z"}', '2026-11-23 17:25:51.068303+00');
INSERT INTO public.lb_records VALUES ('migration', 'woocommerce-identity-checked', '{"shops": ["shop.upgrade-fixture.example"], "sampled": true}', '2026-11-23 17:26:06.245644+00');
INSERT INTO public.lb_records VALUES ('reconciliation', 'woocommerce:shop.upgrade-fixture.example', '{"shop": "shop.upgrade-fixture.example", "lastRun": {"since": "2026-11-23T17:15:50.139Z", "until": "2026-11-23T17:26:06.294Z", "errors": [], "failed": 0, "changed": 2, "fetched": 2, "startedAt": "2026-11-23T17:26:06.294Z", "unchanged": 0, "finishedAt": "2026-11-23T17:26:06.302Z"}, "platform": "woocommerce", "highWaterMark": "2026-11-23T17:26:06.294Z"}', '2026-11-23 17:26:06.30314+00');


--
-- Data for Name: lb_seen; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.lb_seen VALUES ('shopify:b54557e4-bdd9-4b37-8a5f-bf7d70b00031', '2026-11-23 17:25:50.27+00');
INSERT INTO public.lb_seen VALUES ('shopify:b54557e4-bdd9-4b37-8a5f-bf7d70b00032', '2026-11-23 17:25:50.282+00');
INSERT INTO public.lb_seen VALUES ('shopify:b54557e4-bdd9-4b37-8a5f-bf7d70b00033', '2026-11-23 17:25:50.289+00');
INSERT INTO public.lb_seen VALUES ('shopify:b54557e4-bdd9-4b37-8a5f-bf7d70b00034', '2026-11-23 17:25:50.307+00');
INSERT INTO public.lb_seen VALUES ('shopify:b54557e4-bdd9-4b37-8a5f-bf7d70b00035', '2026-11-23 17:25:50.323+00');
INSERT INTO public.lb_seen VALUES ('shopify:b54557e4-bdd9-4b37-8a5f-bf7d70b00036', '2026-11-23 17:25:50.33+00');
INSERT INTO public.lb_seen VALUES ('shopify:b54557e4-bdd9-4b37-8a5f-bf7d70b00037', '2026-11-23 17:25:50.335+00');
INSERT INTO public.lb_seen VALUES ('shopify:b54557e4-bdd9-4b37-8a5f-bf7d70b00038', '2026-11-23 17:25:50.343+00');
INSERT INTO public.lb_seen VALUES ('shopify:b54557e4-bdd9-4b37-8a5f-bf7d70b00039', '2026-11-23 17:25:50.352+00');
INSERT INTO public.lb_seen VALUES ('shopify:b54557e4-bdd9-4b37-8a5f-bf7d70b00040', '2026-11-23 17:25:50.362+00');
INSERT INTO public.lb_seen VALUES ('shopify:b54557e4-bdd9-4b37-8a5f-bf7d70b00041', '2026-11-23 17:25:50.406+00');
INSERT INTO public.lb_seen VALUES ('shopify:b54557e4-bdd9-4b37-8a5f-bf7d70b00042', '2026-11-23 17:25:50.411+00');
INSERT INTO public.lb_seen VALUES ('shopify:b54557e4-bdd9-4b37-8a5f-bf7d70b00043', '2026-11-23 17:25:50.455+00');
INSERT INTO public.lb_seen VALUES ('shopify:b54557e4-bdd9-4b37-8a5f-bf7d70b00044', '2026-11-23 17:25:50.459+00');
INSERT INTO public.lb_seen VALUES ('shopify:b54557e4-bdd9-4b37-8a5f-bf7d70b00045', '2026-11-23 17:25:50.514+00');
INSERT INTO public.lb_seen VALUES ('shopify:b54557e4-bdd9-4b37-8a5f-bf7d70b00046', '2026-11-23 17:25:50.522+00');
INSERT INTO public.lb_seen VALUES ('shopify:b54557e4-bdd9-4b37-8a5f-bf7d70b00047', '2026-11-23 17:25:50.562+00');
INSERT INTO public.lb_seen VALUES ('shopify:b54557e4-bdd9-4b37-8a5f-bf7d70b00048', '2026-11-23 17:25:50.57+00');
INSERT INTO public.lb_seen VALUES ('shopify:b54557e4-bdd9-4b37-8a5f-bf7d70b00049', '2026-11-23 17:25:50.576+00');
INSERT INTO public.lb_seen VALUES ('shopify:b54557e4-bdd9-4b37-8a5f-bf7d70b00050', '2026-11-23 17:25:50.632+00');
INSERT INTO public.lb_seen VALUES ('shopify:b54557e4-bdd9-4b37-8a5f-bf7d70b00051', '2026-11-23 17:25:50.636+00');
INSERT INTO public.lb_seen VALUES ('shopify:b54557e4-bdd9-4b37-8a5f-bf7d70b00052', '2026-11-23 17:25:50.642+00');
INSERT INTO public.lb_seen VALUES ('shopify:b54557e4-bdd9-4b37-8a5f-bf7d70b00053', '2026-11-23 17:25:50.648+00');
INSERT INTO public.lb_seen VALUES ('shopify:b54557e4-bdd9-4b37-8a5f-bf7d70b00054', '2026-11-23 17:25:50.68+00');
INSERT INTO public.lb_seen VALUES ('woocommerce:shop.upgrade-fixture.example:1:5201:2026-11-23T16:35:50:processing:1378a7f90d12e7df09cfb65698897a18', '2026-11-23 17:25:50.749+00');
INSERT INTO public.lb_seen VALUES ('woocommerce:shop.upgrade-fixture.example:1:5202:2026-11-23T16:35:50:processing:a7292791593fba9eba9a2ddf31b1d496', '2026-11-23 17:25:50.752+00');
INSERT INTO public.lb_seen VALUES ('woocommerce:shop.upgrade-fixture.example:1:5203:2026-11-23T16:35:50:processing:d191aacc968d0a26eb4b5312e7cb325d', '2026-11-23 17:25:50.759+00');
INSERT INTO public.lb_seen VALUES ('woocommerce:shop.upgrade-fixture.example:1:5204:2026-11-23T16:35:50:pending:548b21a9bd0ca726b2946da4e7d0d1cc', '2026-11-23 17:25:50.764+00');
INSERT INTO public.lb_seen VALUES ('woocommerce:shop.upgrade-fixture.example:1:5205:2026-11-23T16:35:50:processing:6b1640e73bacf55eaff68637642923e9', '2026-11-23 17:25:50.772+00');
INSERT INTO public.lb_seen VALUES ('woocommerce:shop.upgrade-fixture.example:1:5206:2026-11-23T16:35:50:on-hold:7ac5ca240a19eac56ab90afadc7ea0e7', '2026-11-23 17:25:50.781+00');
INSERT INTO public.lb_seen VALUES ('woocommerce:shop.upgrade-fixture.example:2:5202:2026-11-23T16:45:50:completed:00b9062f13997fbc5fa87156b7d6be19', '2026-11-23 17:25:50.838+00');
INSERT INTO public.lb_seen VALUES ('woocommerce:shop.upgrade-fixture.example:2:5203:2026-11-23T16:45:50:completed:d7f0d2b2cc7ed45168df4afeaefb8f5b', '2026-11-23 17:25:50.85+00');
INSERT INTO public.lb_seen VALUES ('woocommerce:shop.upgrade-fixture.example:2:5204:2026-11-23T16:45:50:cancelled:ef423402a642b039d9cd533ef30841a2', '2026-11-23 17:25:50.854+00');
INSERT INTO public.lb_seen VALUES ('woocommerce:shop.upgrade-fixture.example:2:5203:2026-11-23T16:55:50:refunded:e53bb7cfc190ae782e578442521ca269', '2026-11-23 17:25:50.891+00');
INSERT INTO public.lb_seen VALUES ('bigcommerce:msg_ead1f0cd-14f7-4090-97f3-4169aed906e7', '2026-11-23 17:25:50.914+00');
INSERT INTO public.lb_seen VALUES ('bigcommerce:payload:upgr01:store/order/created:ce844890543ba763f774e8384dfa836cae324f9d:1795454750', '2026-11-23 17:25:50.914+00');
INSERT INTO public.lb_seen VALUES ('bigcommerce:msg_1e1f6c58-a57f-4b61-9abd-9cf4f67203fc', '2026-11-23 17:25:50.92+00');
INSERT INTO public.lb_seen VALUES ('bigcommerce:payload:upgr01:store/order/created:28907436dcffe75e0b8bd0dbbc33762da8b73cba:1795454750', '2026-11-23 17:25:50.92+00');
INSERT INTO public.lb_seen VALUES ('bigcommerce:msg_524e096c-e2e0-40fc-a5a3-725b08c93abf', '2026-11-23 17:25:50.929+00');
INSERT INTO public.lb_seen VALUES ('bigcommerce:payload:upgr01:store/order/created:fcf6c3b3814b98e734b47656d11e01006f8eee6c:1795454750', '2026-11-23 17:25:50.929+00');
INSERT INTO public.lb_seen VALUES ('bigcommerce:msg_296a1d15-f960-4a53-9dbb-ebf0b6dfcd0d', '2026-11-23 17:25:50.934+00');
INSERT INTO public.lb_seen VALUES ('bigcommerce:payload:upgr01:store/order/created:3be55a583683d71474abf1142b3fb7bd0713f6f5:1795454750', '2026-11-23 17:25:50.934+00');
INSERT INTO public.lb_seen VALUES ('bigcommerce:msg_69e9e1c8-1bb0-4fe8-aa82-ec3d624363f7', '2026-11-23 17:25:50.94+00');
INSERT INTO public.lb_seen VALUES ('bigcommerce:payload:upgr01:store/order/created:612fe8136b541b7c2523e230445d2e70e02c989b:1795454750', '2026-11-23 17:25:50.94+00');
INSERT INTO public.lb_seen VALUES ('bigcommerce:msg_a4a6967a-f499-4bcf-9620-32f809a4e412', '2026-11-23 17:25:50.989+00');
INSERT INTO public.lb_seen VALUES ('bigcommerce:payload:upgr01:store/order/statusupdated:28907436dcffe75e0b8bd0dbbc33762da8b73cba:1795454750', '2026-11-23 17:25:50.989+00');
INSERT INTO public.lb_seen VALUES ('bigcommerce:msg_c78825ea-0247-4565-b7e5-63070ce682da', '2026-11-23 17:25:50.992+00');
INSERT INTO public.lb_seen VALUES ('bigcommerce:payload:upgr01:store/order/statusupdated:fcf6c3b3814b98e734b47656d11e01006f8eee6c:1795454750', '2026-11-23 17:25:50.992+00');
INSERT INTO public.lb_seen VALUES ('bigcommerce:msg_d693ef74-7461-42fc-afde-376132163f11', '2026-11-23 17:25:51.004+00');
INSERT INTO public.lb_seen VALUES ('bigcommerce:payload:upgr01:store/order/statusupdated:3be55a583683d71474abf1142b3fb7bd0713f6f5:1795454751', '2026-11-23 17:25:51.004+00');
INSERT INTO public.lb_seen VALUES ('bigcommerce:msg_71175122-c92d-4825-98bf-278a37f3bb19', '2026-11-23 17:25:51.012+00');
INSERT INTO public.lb_seen VALUES ('bigcommerce:payload:upgr01:store/order/created:2fdd7a7315825f2662559207f3b6f69826a66b28:1795454751', '2026-11-23 17:25:51.012+00');
INSERT INTO public.lb_seen VALUES ('bigcommerce-resync:6202:Thu, 19 Nov 2026 20:00:00 +0000:10', '2026-11-23 17:25:51.061+00');
INSERT INTO public.lb_seen VALUES ('shopify:b54557e4-bdd9-4b37-8a5f-bf7d70b00055', '2026-11-23 17:25:51.112+00');
INSERT INTO public.lb_seen VALUES ('shopify:b54557e4-bdd9-4b37-8a5f-bf7d70b00056', '2026-11-23 17:25:51.184+00');
INSERT INTO public.lb_seen VALUES ('shopify:b54557e4-bdd9-4b37-8a5f-bf7d70b00057', '2026-11-23 17:25:51.194+00');
INSERT INTO public.lb_seen VALUES ('bigcommerce:msg_3d7b3e98-b705-4099-8647-dc0c71a7a7de', '2026-11-23 17:25:51.198+00');
INSERT INTO public.lb_seen VALUES ('bigcommerce:payload:upgr01:store/order/created:9bb9c810898be9af3ed249dada1e9a50aa4768bc:1795454751', '2026-11-23 17:25:51.198+00');
INSERT INTO public.lb_seen VALUES ('shopify:b54557e4-bdd9-4b37-8a5f-bf7d70b00058', '2026-11-23 17:26:06.251+00');
INSERT INTO public.lb_seen VALUES ('shopify:b54557e4-bdd9-4b37-8a5f-bf7d70b00059', '2026-11-23 17:26:06.261+00');
INSERT INTO public.lb_seen VALUES ('shopify:b54557e4-bdd9-4b37-8a5f-bf7d70b00060', '2026-11-23 17:26:06.264+00');
INSERT INTO public.lb_seen VALUES ('woocommerce:shop.upgrade-fixture.example:2:5201:2026-11-23T17:21:06:completed:32e5ac2d1c27b6a0908ced162fbcb683', '2026-11-23 17:26:06.269+00');
INSERT INTO public.lb_seen VALUES ('bigcommerce:msg_684b597e-e0e3-4ee5-a30d-9840aab116ab', '2026-11-23 17:26:06.282+00');
INSERT INTO public.lb_seen VALUES ('bigcommerce:payload:upgr01:store/order/statusupdated:ce844890543ba763f774e8384dfa836cae324f9d:1795454766', '2026-11-23 17:26:06.282+00');
INSERT INTO public.lb_seen VALUES ('woocommerce-resync:5201:2026-11-23T17:21:06:completed', '2026-11-23 17:26:06.299+00');
INSERT INTO public.lb_seen VALUES ('woocommerce-resync:5208:2026-11-23T17:24:06:processing', '2026-11-23 17:26:06.301+00');


--
-- Name: lb_migrations_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.lb_migrations_id_seq', 3, true);


--
-- Name: lb_dead_letters lb_dead_letters_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.lb_dead_letters
    ADD CONSTRAINT lb_dead_letters_pkey PRIMARY KEY (id);


--
-- Name: lb_inbox lb_inbox_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.lb_inbox
    ADD CONSTRAINT lb_inbox_pkey PRIMARY KEY (key);


--
-- Name: lb_lp_order_ids lb_lp_order_ids_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.lb_lp_order_ids
    ADD CONSTRAINT lb_lp_order_ids_pkey PRIMARY KEY (lp_order_id);


--
-- Name: lb_migrations lb_migrations_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.lb_migrations
    ADD CONSTRAINT lb_migrations_pkey PRIMARY KEY (id);


--
-- Name: lb_order_counts lb_order_counts_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.lb_order_counts
    ADD CONSTRAINT lb_order_counts_pkey PRIMARY KEY (state, platform, reason);


--
-- Name: lb_orders lb_orders_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.lb_orders
    ADD CONSTRAINT lb_orders_pkey PRIMARY KEY (key);


--
-- Name: lb_rate_limit lb_rate_limit_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.lb_rate_limit
    ADD CONSTRAINT lb_rate_limit_pkey PRIMARY KEY (key);


--
-- Name: lb_records lb_records_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.lb_records
    ADD CONSTRAINT lb_records_pkey PRIMARY KEY (kind, id);


--
-- Name: lb_seen lb_seen_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.lb_seen
    ADD CONSTRAINT lb_seen_pkey PRIMARY KEY (key);


--
-- Name: lb_dead_letters_created; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX lb_dead_letters_created ON public.lb_dead_letters USING btree (created_at);


--
-- Name: lb_inbox_due; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX lb_inbox_due ON public.lb_inbox USING btree (due_at);


--
-- Name: lb_lp_order_ids_owner; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX lb_lp_order_ids_owner ON public.lb_lp_order_ids USING btree (order_key);


--
-- Name: lb_orders_due; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX lb_orders_due ON public.lb_orders USING btree (due_at) WHERE (due_at IS NOT NULL);


--
-- Name: lb_orders_email; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX lb_orders_email ON public.lb_orders USING btree (lower(email));


--
-- Name: lb_orders_lane_due; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX lb_orders_lane_due ON public.lb_orders USING btree (lane, due_at) WHERE (due_at IS NOT NULL);


--
-- Name: lb_orders_lane_shop_due; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX lb_orders_lane_shop_due ON public.lb_orders USING btree (lane, platform, shop, due_at) WHERE (due_at IS NOT NULL);


--
-- Name: lb_orders_mobile; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX lb_orders_mobile ON public.lb_orders USING btree (mobile) WHERE (mobile IS NOT NULL);


--
-- Name: lb_orders_shop; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX lb_orders_shop ON public.lb_orders USING btree (platform, shop);


--
-- Name: lb_orders_state; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX lb_orders_state ON public.lb_orders USING btree (state, updated_at DESC);


--
-- Name: lb_orders_updated; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX lb_orders_updated ON public.lb_orders USING btree (updated_at DESC, key);


--
-- Name: lb_seen_received; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX lb_seen_received ON public.lb_seen USING btree (received_at);


--
-- Name: lb_orders lb_orders_count_insert_delete; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER lb_orders_count_insert_delete AFTER INSERT OR DELETE ON public.lb_orders FOR EACH ROW EXECUTE FUNCTION public.lb_count_orders();


--
-- Name: lb_orders lb_orders_count_update; Type: TRIGGER; Schema: public; Owner: -
--

CREATE TRIGGER lb_orders_count_update AFTER UPDATE OF state, platform, reason ON public.lb_orders FOR EACH ROW WHEN (((old.state IS DISTINCT FROM new.state) OR (old.platform IS DISTINCT FROM new.platform) OR (old.reason IS DISTINCT FROM new.reason))) EXECUTE FUNCTION public.lb_count_orders();


--
-- PostgreSQL database dump complete
--

\unrestrict xAsyg3MnX5vFoLiPtlVxa4Qn6e9QVN2qflU5bUY65B8DAWXgozWwp7heJs2d0lH


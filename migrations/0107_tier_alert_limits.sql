-- Pricing advertised 25/100/500 alerts for pro/alpha/whale while the alerts domain enforces 10/25/100
-- (server/domains/alerts/Policy.ts). Pricing now shows what is enforced; test/alerts/limits.test.ts keeps the two equal.
UPDATE tiers SET alert_limit = CASE name WHEN 'free' THEN 3 WHEN 'pro' THEN 10 WHEN 'alpha' THEN 25 WHEN 'whale' THEN 100 WHEN 'staff' THEN 1000 ELSE alert_limit END;

-- The sample supply/demand table (tests, demo and benchmarks use it). Any other table works by config.
CREATE TABLE supply_demand (
  id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  title VARCHAR(255), category VARCHAR(16), product VARCHAR(64), region VARCHAR(64), price VARCHAR(64),
  contact VARCHAR(64), phone VARCHAR(64), content TEXT, reg_time DATETIME
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci;

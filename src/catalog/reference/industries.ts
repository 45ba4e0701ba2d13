// Industries of employers: the registry's industry label, the words their names end with, and the sectors they hire in.

export interface IndustryRef {
  name: string;
  /** Relative number of companies. */
  share: number;
  /** Name endings: "Logistics", "Credit Union". */
  nouns: readonly string[];
  /** Sector → relative share of its openings. */
  mix: Readonly<Record<string, number>>;
  /** Probability that a company of this industry is a multi-site chain. */
  chain: number;
  /** Legal-form suffixes are not used (hospitals, schools, public bodies, nonprofits). */
  noSuffix?: boolean;
  government?: boolean;
}

function industry(name: string, share: number, nouns: string, mix: string, chain: number, flags: Partial<IndustryRef> = {}): IndustryRef {
  const weights: Record<string, number> = {};
  for (const item of mix.split(' ')) {
    const [sector, weight] = item.split(':') as [string, string];
    weights[sector] = Number(weight);
  }
  return { name, share, nouns: nouns.split('|'), mix: weights, chain, ...flags };
}

export const INDUSTRIES: readonly IndustryRef[] = [
  industry('Software Development', 10, 'Software|Labs|Technologies|Systems|Cloud|Digital|Analytics|AI|Networks|Data', 'software:5 data:2 sales:1.5 marketing:1 support:1 hr:0.3 finance:0.3 admin:0.3 legal:0.1', 0),
  industry('IT Services and IT Consulting', 5, 'Consulting|Solutions|Technologies|IT Group|Tech Partners|Digital Services', 'software:3 data:1.5 support:1.5 sales:1 admin:0.5 hr:0.3', 0.1),
  industry('Hospitals and Health Care', 7, 'Health|Medical Center|Health System|Hospital|Healthcare|Regional Medical Center', 'nursing:5 healthcare:4 admin:0.6 support:0.6 hr:0.3 finance:0.3 trades:0.3 hospitality:0.3 accounting:0.2', 0.6, { noSuffix: true }),
  industry('Medical Practices', 5, 'Medical Group|Family Medicine|Dental|Physicians|Orthopedics|Eye Care|Pediatrics|Dermatology', 'healthcare:5 nursing:2 support:1 admin:1 accounting:0.2', 0.3),
  industry('Home Health Care Services', 3, 'Home Care|Senior Living|Home Health|Care Services|Hospice', 'healthcare:4 nursing:3 admin:0.5 hospitality:0.3', 0.4),
  industry('Pharmaceutical Manufacturing', 2, 'Therapeutics|Biosciences|Pharmaceuticals|Bio|Diagnostics|Life Sciences', 'engineering:2 data:1 healthcare:1 manufacturing:1.5 sales:1.5 legal:0.3 finance:0.3', 0.1),
  industry('Retail', 7, 'Stores|Outfitters|Supply|Goods|Mercantile|Home|Pharmacy|Hardware|Sporting Goods|Apparel', 'retail:8 warehouse:1 logistics:0.5 marketing:0.5 admin:0.3 hr:0.3 support:0.5 software:0.2', 0.8),
  industry('Retail Groceries', 3, 'Foods|Market|Grocers|Fresh Market|Food Stores|Supermarkets', 'retail:8 warehouse:1 hospitality:0.5 logistics:0.3', 0.9),
  industry('Restaurants', 7, 'Kitchen|Grill|Restaurants|Hospitality Group|Eatery|Coffee|Bakery|Tavern|Pizza|Burgers', 'hospitality:8 retail:1 admin:0.2', 0.7),
  industry('Hospitality', 3, 'Hotels|Resorts|Inns|Hospitality|Suites|Lodge', 'hospitality:7 sales:0.5 admin:0.3 trades:0.5 finance:0.2', 0.6),
  industry('Truck Transportation', 6, 'Logistics|Freight|Transport|Trucking|Express|Shipping|Lines|Carriers', 'logistics:5 warehouse:3 trades:0.5 admin:0.5 sales:0.3', 0.5),
  industry('Warehousing and Storage', 3, 'Fulfillment|Distribution|Supply Chain|Warehousing|Logistics Centers', 'warehouse:6 logistics:2 software:0.3 admin:0.3', 0.6),
  industry('Manufacturing', 8, 'Manufacturing|Industries|Products|Works|Fabrication|Components|Machine|Plastics|Metals|Packaging', 'manufacturing:6 engineering:2 warehouse:1 trades:1 sales:0.5 accounting:0.2 hr:0.2', 0.3),
  industry('Motor Vehicle Manufacturing', 3, 'Motors|Automotive|Auto Group|Vehicles|Mobility', 'trades:3 sales:2 manufacturing:2 engineering:1', 0.5),
  industry('Banking', 3, 'Bank|Bancorp|Financial|Savings Bank|Trust', 'finance:6 accounting:1 support:1 software:1 sales:0.5', 0.6),
  industry('Credit Unions', 2, 'Credit Union|Federal Credit Union|Community Credit Union', 'finance:6 support:1 accounting:0.5', 0.4, { noSuffix: true }),
  industry('Insurance', 3, 'Insurance|Mutual|Assurance|Insurance Group|Casualty', 'finance:5 support:2 software:1 sales:1 legal:0.2', 0.2),
  industry('Financial Services', 3, 'Capital|Partners|Investments|Advisors|Asset Management|Wealth', 'finance:5 accounting:1 data:1 sales:1 software:0.5', 0),
  industry('Accounting', 2, 'CPAs|Accounting|Tax Advisors|Advisory', 'accounting:6 finance:1 admin:1', 0.1),
  industry('Law Practice', 2, 'Law Group|Legal|Law Firm|Attorneys', 'legal:6 admin:1', 0.1),
  industry('Advertising Services', 3, 'Media|Creative|Agency|Studios|Marketing|Brands', 'marketing:6 sales:1 software:1 data:0.5', 0),
  industry('Education', 5, 'Academy|Schools|Learning|College|Institute|Learning Center', 'education:7 admin:1 support:0.5 trades:0.5 hr:0.2', 0.5, { noSuffix: true }),
  industry('Construction', 6, 'Construction|Builders|Contractors|Building Group|Homes|Construction Services', 'construction:6 trades:2 engineering:1 admin:0.3', 0.2),
  industry('Facilities Services', 3, 'Facility Services|Maintenance|Property Services|Mechanical|Electric|Plumbing', 'trades:5 construction:1 admin:0.3', 0.4),
  industry('Government Administration', 3, '', 'government:6 admin:1 healthcare:0.5 trades:0.5 finance:0.3 legal:0.3', 0.3, { noSuffix: true, government: true }),
  industry('Staffing and Recruiting', 3, 'Staffing|Talent|Workforce Solutions|Personnel|Employment Services', 'hr:1 warehouse:2 admin:2 support:1 manufacturing:1 healthcare:1', 0.5),
  industry('Utilities', 2, 'Energy|Power|Utilities|Electric|Gas|Water', 'engineering:3 trades:3 support:1 admin:0.5', 0.3),
  industry('Telecommunications', 1.5, 'Communications|Wireless|Telecom|Fiber|Broadband', 'software:2 support:2 trades:2 retail:1 sales:1', 0.4),
  industry('Real Estate', 3, 'Properties|Realty|Property Management|Real Estate|Residential', 'admin:3 sales:2 trades:1', 0.3),
  industry('Non-profit Organizations', 2, 'Foundation|Alliance|Community Services|Family Services|Youth Services', 'admin:2 education:1 healthcare:1 marketing:1 support:1', 0.2, { noSuffix: true }),
  industry('Outsourcing and Offshoring Consulting', 1, 'Contact Solutions|Customer Solutions|Business Services', 'support:6 admin:1', 0.4),
];

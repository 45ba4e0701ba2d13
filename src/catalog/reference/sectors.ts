// Occupational sectors: their departments, team names, what a team works on, shared duties and requirements.

export interface SectorRef {
  department: string;
  /** Share of openings that may be remote. */
  remote: number;
  /** Team or unit names a team paragraph picks from. */
  teams: readonly string[];
  /** What the team does, finishing "The {team} team ...". */
  focus: readonly string[];
  /** Where the work happens, finishing "based at our ...". */
  sites: readonly string[];
  duties: readonly string[];
  requirements: readonly string[];
  education: string;
}

const split = (text: string) => text.split('|');

const OFFICE_SITES = split('downtown office|headquarters|regional office|innovation center|technology hub|corporate campus');
const CLINIC_SITES = split('main hospital campus|outpatient clinic|community health center|surgical center|medical office building|rehabilitation center');
const FLOOR_SITES = split('distribution center|fulfillment center|manufacturing plant|production facility|cross-dock facility|service center');
const STORE_SITES = split('flagship store|neighborhood store|supercenter|outlet store|mall location|travel center');

export const SECTORS: Readonly<Record<string, SectorRef>> = {
  software: {
    department: 'Engineering', remote: 0.45, sites: OFFICE_SITES,
    teams: split('Payments|Identity|Search|Platform|Developer Experience|Observability|Billing|Growth|Checkout|Messaging|Notifications|Data Infrastructure|Mobile Foundations|Core API|Fraud Prevention|Integrations|Storage|Networking|Compute|Reliability|Internal Tools|Onboarding|Marketplace|Pricing|Accounts|Risk Engineering|Edge|Release Engineering'),
    focus: split('builds the services behind every customer transaction|owns the APIs our partners integrate with|keeps our systems fast, secure and available|turns raw events into reliable product features|makes engineers across the company more productive|ships the features customers see first|scales the platform as usage grows every quarter|protects customers from fraud and abuse|runs the infrastructure our products depend on|helps new customers get started in minutes'),
    duties: split('participate in the on-call rotation and improve runbooks|write design documents and review them with peers|break large projects into small, safe releases|measure the impact of every change you ship|mentor engineers through code review and pairing|improve test coverage and build times|collaborate with product managers and designers on scope'),
    requirements: split('experience building and operating production systems|a solid grasp of data structures, algorithms and system design|comfort with Git, code review and continuous integration|clear written communication, including design documents|experience with relational databases and SQL'),
    education: "a bachelor's degree in computer science or equivalent practical experience",
  },
  data: {
    department: 'Data', remote: 0.45, sites: OFFICE_SITES,
    teams: split('Analytics|Data Platform|Experimentation|Forecasting|Insights|Marketing Analytics|Risk Analytics|Personalization|Data Science|Business Intelligence|Decision Science|Machine Learning Platform|Customer Analytics|Supply Chain Analytics|Pricing Science'),
    focus: split('helps leaders make decisions with trustworthy data|builds the models behind our recommendations|measures what works through careful experiments|owns the metrics the whole company reports on|turns messy data into clear answers|forecasts demand across every market we serve'),
    duties: split('write clean, well-tested SQL and Python|document data sources, definitions and caveats|present results to audiences with different technical backgrounds|partner with engineering to instrument new features|validate data quality before results are shared'),
    requirements: split('strong SQL skills and experience with a scripting language|a solid foundation in statistics|experience turning ambiguous questions into analyses|the ability to explain technical results in plain language'),
    education: "a bachelor's degree in statistics, mathematics, economics, computer science or a related field",
  },
  engineering: {
    department: 'Engineering', remote: 0.1, sites: split('engineering center|design office|test laboratory|manufacturing site|field office|project site'),
    teams: split('Product Development|Advanced Engineering|Test and Validation|Sustaining Engineering|New Product Introduction|Process Development|Reliability|Design Engineering|Systems Engineering|Field Engineering|Capital Projects|Transportation|Water Resources|Power Systems'),
    focus: split('takes new products from concept to production|keeps existing products safe, reliable and manufacturable|designs infrastructure that communities rely on|validates every design against demanding requirements|improves the processes that build our products'),
    duties: split('prepare calculations, drawings and technical reports|follow engineering standards and codes|take part in design reviews|support testing in the lab and in the field|work with suppliers on parts and materials'),
    requirements: split('experience with CAD and engineering analysis tools|knowledge of relevant codes and standards|strong problem-solving and documentation skills|an EIT or PE license is a plus'),
    education: "a bachelor's degree in engineering",
  },
  healthcare: {
    department: 'Clinical Services', remote: 0.03, sites: CLINIC_SITES,
    teams: split('Family Medicine|Internal Medicine|Pediatrics|Orthopedics|Cardiology|Oncology|Women\'s Health|Urgent Care|Behavioral Health|Rehabilitation Services|Laboratory Services|Imaging Services|Surgical Services|Dermatology|Neurology|Pulmonology|Gastroenterology|Endocrinology|Emergency Services|Patient Access'),
    focus: split('cares for thousands of patients every year|delivers high-quality, compassionate care close to home|brings specialists and primary care together|is known for excellent patient experience scores|serves a diverse and growing community'),
    duties: split('follow infection control and safety protocols|document care accurately in the electronic health record|protect patient privacy under HIPAA|communicate clearly with patients, families and the care team|take part in quality improvement projects'),
    requirements: split('current BLS certification|a current license or certification in the state of practice|excellent communication and bedside manner|the ability to stand and walk for long periods'),
    education: 'completion of an accredited program',
  },
  nursing: {
    department: 'Nursing', remote: 0.02, sites: CLINIC_SITES,
    teams: split('Medical-Surgical|Intensive Care|Emergency Department|Labor and Delivery|Mother-Baby|Oncology|Pediatrics|Cardiac Step-Down|Orthopedics|Behavioral Health|Telemetry|Neuro ICU|Post-Anesthesia Care|Perioperative Services|Neonatal ICU|Progressive Care|Wound Care|Infusion Center|Dialysis|Float Pool'),
    focus: split('provides round-the-clock care to acutely ill patients|is a Magnet-recognized unit with strong shared governance|cares for patients before and after surgery|supports families through some of the biggest moments of their lives|has low turnover and a strong culture of teamwork'),
    duties: split('follow evidence-based nursing practice|precept students and new graduates|take part in unit councils and shared governance|respond calmly to changing patient conditions|hand off patients with clear, complete reports'),
    requirements: split('an active RN license or a multistate compact license|BLS certification from the American Heart Association|one year of acute care experience preferred|strong critical thinking and prioritization'),
    education: 'graduation from an accredited nursing program; BSN preferred',
  },
  finance: {
    department: 'Finance', remote: 0.2, sites: split('downtown office|branch|operations center|regional office|headquarters'),
    teams: split('FP&A|Treasury|Commercial Banking|Consumer Lending|Wealth Management|Risk Management|Credit|Investments|Claims|Underwriting|Financial Crimes|Capital Markets|Mortgage Operations|Retail Banking'),
    focus: split('helps customers reach their financial goals|manages risk across a growing portfolio|keeps our balance sheet strong|supports small businesses in our communities|serves members with honesty and care'),
    duties: split('follow regulatory and compliance requirements|protect customer information|prepare accurate reports for leadership|meet service and accuracy standards'),
    requirements: split('strong analytical and Excel skills|attention to detail and accuracy|knowledge of financial products and regulations|integrity and good judgment'),
    education: "a bachelor's degree in finance, accounting, economics or a related field",
  },
  accounting: {
    department: 'Accounting', remote: 0.3, sites: split('headquarters|shared services center|regional office|downtown office'),
    teams: split('General Ledger|Accounts Payable|Accounts Receivable|Revenue|Payroll|Tax|Internal Audit|Consolidations|Fixed Assets|Cost Accounting|Technical Accounting|Billing'),
    focus: split('closes the books accurately every month|keeps our financial records audit-ready|supports a fast-growing business with sound controls|pays our vendors and people on time'),
    duties: split('meet month-end and year-end deadlines|maintain strong internal controls|document processes and reconciliations|support external auditors'),
    requirements: split('knowledge of GAAP|advanced Excel skills|experience with an ERP system|a CPA or progress toward one is a plus'),
    education: "a bachelor's degree in accounting or finance",
  },
  sales: {
    department: 'Sales', remote: 0.3, sites: OFFICE_SITES,
    teams: split('Enterprise Sales|Mid-Market|SMB|Strategic Accounts|Channel Partners|Inside Sales|Field Sales|Public Sector|Healthcare Accounts|Customer Success|Renewals|Business Development'),
    focus: split('brings our products to new customers every day|grows our relationships with our largest customers|opens new markets and territories|keeps customers successful long after the sale'),
    duties: split('keep the CRM up to date|forecast your pipeline accurately|share market feedback with product and marketing|travel to customer sites when needed'),
    requirements: split('a track record of meeting or exceeding quota|excellent presentation and negotiation skills|comfort with a CRM and sales tools|a valid driver\'s license for field roles'),
    education: "a bachelor's degree or equivalent experience",
  },
  marketing: {
    department: 'Marketing', remote: 0.35, sites: OFFICE_SITES,
    teams: split('Brand|Demand Generation|Product Marketing|Content|Lifecycle|Growth Marketing|Communications|Creative|Field Marketing|Social|Partner Marketing|Customer Marketing'),
    focus: split('tells our story to customers around the world|creates demand for our products|builds a brand people trust|turns customers into advocates'),
    duties: split('measure and report on campaign results|stay current with marketing trends and tools|work closely with sales and product teams|manage agencies and freelancers'),
    requirements: split('a portfolio or examples of your work|strong writing and editing skills|experience with marketing automation and analytics tools|the ability to manage several projects at once'),
    education: "a bachelor's degree in marketing, communications or a related field",
  },
  legal: {
    department: 'Legal', remote: 0.2, sites: split('downtown office|headquarters|regional office|courthouse office'),
    teams: split('Litigation|Corporate|Employment|Intellectual Property|Real Estate|Privacy|Commercial Contracts|Regulatory|Compliance|Mergers and Acquisitions'),
    focus: split('advises the business on complex legal questions|represents clients in state and federal courts|protects our intellectual property|keeps the company compliant as it grows'),
    duties: split('meet court and filing deadlines|maintain client confidentiality|track time accurately|keep current with changes in the law'),
    requirements: split('excellent research and writing skills|strong attention to detail|the ability to manage competing deadlines|experience with legal research databases'),
    education: 'a paralegal certificate, bachelor\'s degree or law degree, depending on the role',
  },
  hr: {
    department: 'Human Resources', remote: 0.3, sites: OFFICE_SITES,
    teams: split('Talent Acquisition|People Operations|Total Rewards|Learning and Development|Employee Relations|HR Business Partners|Benefits|Recruiting Operations|Workforce Planning|Culture and Engagement'),
    focus: split('helps us hire and grow great people|makes every employee experience a good one|designs fair and competitive pay and benefits|builds a culture where people do their best work'),
    duties: split('keep employee information confidential|follow employment laws and company policies|use HR systems and data to guide decisions|support managers with practical advice'),
    requirements: split('knowledge of employment law|experience with an HRIS|excellent interpersonal skills|SHRM or HRCI certification is a plus'),
    education: "a bachelor's degree in human resources, business or a related field",
  },
  retail: {
    department: 'Store Operations', remote: 0, sites: STORE_SITES,
    teams: split('Front End|Grocery|Produce|Pharmacy|Electronics|Apparel|Home|Garden Center|Bakery|Deli|Customer Service|Receiving|Beauty|Seasonal|Online Pickup|Toys|Sporting Goods|Hardware|Café|Fresh Foods'),
    focus: split('serves shoppers from opening to close|is one of the busiest stores in the district|takes pride in clean aisles and full shelves|knows many of our regular customers by name|helps online orders reach customers the same day'),
    duties: split('follow cash handling and safety procedures|help keep the store clean, safe and stocked|support teammates in other departments when needed|work a flexible schedule including nights, weekends and holidays'),
    requirements: split('a friendly, customer-first attitude|the ability to stand for long periods and lift up to 40 pounds|reliable attendance|basic math and communication skills'),
    education: 'a high school diploma or equivalent is preferred but not required',
  },
  logistics: {
    department: 'Transportation', remote: 0.05, sites: FLOOR_SITES,
    teams: split('Regional Fleet|Dedicated Fleet|Linehaul|Last Mile|Dispatch|Freight Operations|International Logistics|Customs|Carrier Relations|Transportation Planning|Route Planning|Yard Operations'),
    focus: split('moves freight safely across the region|delivers to thousands of customers every week|keeps our network running on time|connects shippers with reliable carriers'),
    duties: split('follow DOT and company safety policies|communicate delays and exceptions quickly|keep logs and paperwork accurate|treat customers and partners with respect'),
    requirements: split('a safe driving record|knowledge of DOT regulations|strong communication skills|the ability to pass a drug screen and background check'),
    education: 'a high school diploma or equivalent',
  },
  warehouse: {
    department: 'Warehouse Operations', remote: 0, sites: FLOOR_SITES,
    teams: split('Inbound|Outbound|Receiving|Returns|Shipping|Inventory Control|Replenishment|Picking|Packing|Sortation|Cold Storage|Bulk Storage|Yard|Quality Assurance|Kitting'),
    focus: split('gets orders out the door on time, every time|handles thousands of cases every shift|keeps inventory accurate across the building|runs one of the safest buildings in our network'),
    duties: split('follow safety rules and wear required protective equipment|meet productivity and accuracy goals|keep aisles and work areas clean|work overtime during peak season'),
    requirements: split('the ability to lift up to 50 pounds repeatedly|comfort standing and walking for a full shift|reliable transportation and attendance|forklift certification is a plus'),
    education: 'no diploma required; we provide paid training',
  },
  manufacturing: {
    department: 'Manufacturing', remote: 0, sites: FLOOR_SITES,
    teams: split('Assembly|Machining|Fabrication|Molding|Packaging|Quality|Maintenance|Paint|Welding|Final Test|Tool Room|Extrusion|Stamping|Batching|Finishing'),
    focus: split('builds products trusted by customers around the world|runs three shifts to keep up with demand|has gone years without a lost-time injury|is investing in new automated lines'),
    duties: split('follow safety, quality and GMP procedures|keep accurate production records|take part in 5S and continuous improvement|work assigned shifts including some overtime'),
    requirements: split('the ability to read work instructions and blueprints|good hand-eye coordination|a commitment to safety and quality|reliable attendance'),
    education: 'a high school diploma or equivalent',
  },
  education: {
    department: 'Education', remote: 0.05, sites: split('elementary school|middle school|high school|learning center|campus|early learning center'),
    teams: split('Math|Science|English Language Arts|Social Studies|Special Education|Early Childhood|Student Services|World Languages|Fine Arts|Physical Education|STEM|Counseling|Academic Affairs|Student Success'),
    focus: split('helps every student reach their potential|serves a diverse and growing student body|is known for strong family partnerships|puts student well-being first'),
    duties: split('follow district and school policies|keep student records confidential|take part in professional development|support school-wide events and activities'),
    requirements: split('a passion for working with students|strong communication with students and families|the ability to pass a background check|state certification where required'),
    education: "a bachelor's degree; some roles require a master's degree or teaching license",
  },
  hospitality: {
    department: 'Hospitality', remote: 0, sites: split('hotel|resort|restaurant|conference center|café|banquet hall'),
    teams: split('Front of House|Back of House|Banquets|Room Service|Housekeeping|Front Office|Food and Beverage|Catering|Pastry|Bar|Guest Services|Events|Lobby Lounge|Pool Café'),
    focus: split('creates memorable experiences for every guest|serves locals and travelers all year round|is known for seasonal menus and warm service|hosts weddings, conferences and celebrations'),
    duties: split('follow food safety and sanitation standards|work as one team across departments|work a flexible schedule including nights, weekends and holidays|keep the guest experience at the center of everything'),
    requirements: split('a warm, guest-first attitude|the ability to stand for long periods and lift up to 30 pounds|a food handler card where required|reliable attendance'),
    education: 'no formal education required; culinary training is a plus for kitchen roles',
  },
  construction: {
    department: 'Field Operations', remote: 0, sites: split('job site|project site|regional office|yard|field office'),
    teams: split('Commercial Construction|Residential Construction|Civil|Site Work|Interiors|Healthcare Projects|Multifamily|Infrastructure|Special Projects|Preconstruction|Self-Perform|Concrete'),
    focus: split('builds hospitals, schools and offices across the region|delivers complex projects safely and on time|self-performs much of our concrete and carpentry work|takes projects from groundbreaking to ribbon cutting'),
    duties: split('follow OSHA and site safety rules|keep tools and equipment in good condition|communicate with supervisors and other trades|work outdoors in changing weather'),
    requirements: split('experience on commercial or residential job sites|your own hand tools for trade roles|OSHA 10 or OSHA 30 certification|reliable transportation to job sites'),
    education: 'a high school diploma or equivalent; trade school or apprenticeship is a plus',
  },
  government: {
    department: 'Public Service', remote: 0.1, sites: split('city hall|county building|state office building|field office|district station|federal building'),
    teams: split('Patrol Division|Fire Rescue|Public Works|Planning and Development|Health and Human Services|Parks and Recreation|Emergency Management|Budget Office|Community Services|Housing|Transportation|Environmental Services'),
    focus: split('serves residents of a growing community|keeps the public safe every day|delivers programs that make a difference|works with neighborhoods to plan for the future'),
    duties: split('follow laws, regulations and agency policies|serve the public with courtesy and fairness|keep accurate public records|respond during emergencies when called'),
    requirements: split('U.S. citizenship for federal positions|the ability to pass a background investigation|strong written and verbal communication|a valid driver\'s license'),
    education: 'requirements vary by position; see the qualifications section',
  },
  support: {
    department: 'Customer Support', remote: 0.45, sites: split('contact center|support center|operations center|regional office'),
    teams: split('Customer Care|Technical Support|Billing Support|Member Services|Patient Services|Escalations|Onboarding Support|Premium Support|Chat Support|Retention'),
    focus: split('answers customer questions around the clock|solves problems on the first contact|turns frustrated customers into fans|supports millions of members every year'),
    duties: split('meet quality and response time goals|document every interaction accurately|follow security and privacy procedures|share customer feedback with the wider team'),
    requirements: split('excellent listening and communication skills|comfort with computers and multiple screens|patience and empathy with customers|a quiet workspace and reliable internet for remote roles'),
    education: 'a high school diploma or equivalent',
  },
  trades: {
    department: 'Facilities and Service', remote: 0, sites: split('service center|facility|campus|job site|shop'),
    teams: split('Residential Service|Commercial Service|Facilities Maintenance|New Construction|Plant Maintenance|Preventive Maintenance|Emergency Service|Fleet Maintenance|Grounds|Building Services'),
    focus: split('keeps homes and businesses comfortable and safe|responds to service calls across the metro area|maintains buildings and equipment across our campus|takes pride in quality workmanship'),
    duties: split('follow safety procedures and lockout/tagout|keep service vehicles clean and stocked|complete work orders and paperwork accurately|take part in an on-call rotation'),
    requirements: split('a valid driver\'s license and good driving record|your own basic hand tools|relevant trade license or certification|the ability to work on ladders and in tight spaces'),
    education: 'a high school diploma; trade school or apprenticeship preferred',
  },
  admin: {
    department: 'Administration', remote: 0.25, sites: OFFICE_SITES,
    teams: split('Executive Office|Operations|Facilities|Procurement|Administration|Property Management|Office Services|Business Operations|Project Management Office|Leasing'),
    focus: split('keeps the business running smoothly|supports leaders across the company|makes the office a great place to work|keeps projects organized and on track'),
    duties: split('handle confidential information with discretion|keep files and records organized|communicate professionally with visitors and partners|support other teams during busy periods'),
    requirements: split('proficiency with Microsoft Office or Google Workspace|strong organization and time management|excellent written and verbal communication|a professional and friendly manner'),
    education: 'a high school diploma; an associate or bachelor\'s degree is a plus',
  },
};

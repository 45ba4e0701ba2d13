// General English vocabulary for descriptions, each list ranked from common to rare so Zipf sampling keeps common words common.

function words(text: string): readonly string[] {
  return [...new Set(text.trim().split(/\s+/))];
}

/** Qualities of work, teams and products. */
export const ADJECTIVES = words(`
  strong new high key clear effective reliable accurate safe efficient complex daily timely professional
  excellent positive collaborative consistent modern critical large growing diverse flexible practical essential
  innovative secure scalable dynamic skilled friendly organized proactive thorough responsive productive supportive
  detailed operational strategic technical financial clinical digital global regional local national internal external
  small simple major core primary current open complete available accessible sustainable inclusive
  rigorous robust resilient sound accountable transparent ethical compliant measurable actionable competitive steady
  fast-paced hands-on cross-functional customer-facing detail-oriented high-volume state-of-the-art long-term real-time
  end-to-end up-to-date well-rounded data-driven results-oriented mission-driven self-directed entry-level
  day-to-day world-class award-winning family-owned employee-owned
  thoughtful curious creative adaptable dependable motivated energetic enthusiastic courteous respectful patient
  compassionate caring attentive punctual honest diligent resourceful versatile analytical methodical meticulous
  knowledgeable experienced certified licensed qualified capable confident articulate persuasive tactful discreet
  independent ambitious driven committed passionate hardworking seasoned talented
  comprehensive integrated automated centralized standardized streamlined optimized unified shared common dedicated
  specialized advanced basic foundational intermediate emerging evolving established mature
  urgent routine recurring seasonal annual quarterly monthly weekly nightly overnight
  physical mental emotional social environmental structural mechanical electrical chemical biological medical surgical
  commercial residential industrial agricultural municipal federal academic educational legal regulatory contractual
  statistical quantitative qualitative visual verbal written spoken multilingual bilingual virtual
  mobile wireless cloud-based web-based open-source proprietary legacy distributed embedded parallel asynchronous
  lean agile iterative incremental vibrant welcoming tight-knit close-knit
  affordable premium luxury boutique artisanal organic fresh nationwide statewide citywide
  rural urban suburban coastal northern southern eastern western central downtown
  meaningful rewarding challenging exciting engaging stimulating fulfilling purposeful impactful visible
  sizable substantial significant notable remarkable outstanding exceptional superior flagship
  fragile sensitive confidential hazardous perishable oversized refrigerated temperature-controlled
  granular holistic nuanced pragmatic principled disciplined structured unstructured ambiguous
  frictionless seamless intuitive elegant polished tidy sturdy durable portable modular configurable interoperable
  auditable traceable verifiable repeatable predictable observable maintainable testable extensible performant
  bespoke handcrafted heritage iconic beloved trusted respected renowned pioneering visionary trailblazing
`);

/** Countable things people work on, in the plural. */
export const NOUNS = words(`
  customers projects processes systems teams products services programs operations reports tools solutions standards
  results goals tasks requests issues records policies procedures requirements priorities resources materials orders
  partners patients students members clients users vendors suppliers employees colleagues stakeholders leaders
  applications platforms features releases designs plans budgets forecasts schedules shipments deliveries accounts
  contracts proposals invoices payments claims cases tickets incidents audits reviews inspections assessments
  metrics dashboards models pipelines datasets databases documents files specifications drawings estimates quotes
  campaigns channels events workshops trainings sessions meetings presentations briefings updates announcements
  initiatives improvements changes upgrades migrations integrations implementations rollouts launches pilots experiments
  opportunities relationships partnerships agreements negotiations decisions recommendations insights findings trends
  risks controls checks safeguards protocols guidelines checklists workflows routines shifts rotations assignments
  facilities sites stores branches locations warehouses plants clinics hospitals schools campuses offices buildings
  vehicles trucks trailers routes loads pallets containers parcels packages units items goods parts components assemblies
  machines instruments devices sensors fixtures molds dies gauges valves pumps motors circuits
  networks servers interfaces endpoints queues caches clusters repositories
  tests builds deployments environments configurations scripts libraries frameworks modules versions
  ledgers statements reconciliations journals entries transactions balances portfolios assets
  loans mortgages deposits premiums wages salaries bonuses
  lessons courses curricula classrooms grades exams tutors mentors cohorts
  menus recipes dishes ingredients reservations guests rooms suites banquets tours itineraries bookings
  permits licenses certifications codes bids submittals blueprints
  filings briefs motions depositions pleadings matters disputes settlements
  candidates hires openings interviews offers evaluations promotions transfers grievances
  questions answers comments complaints compliments suggestions surveys ratings testimonials
  communities neighborhoods families households seniors veterans volunteers donors sponsors advocates residents
  shelves displays aisles registers receipts returns exchanges coupons markdowns planograms
  samples specimens slides cultures reagents assays trials studies charts prescriptions medications
  vitals wounds injuries diagnoses treatments therapies surgeries admissions discharges referrals
  ideas stories narratives messages headlines articles posts videos images photographs illustrations layouts mockups
  prototypes wireframes storyboards podcasts newsletters webinars brochures catalogs manuals guides
  milestones deadlines deliverables objectives outcomes targets benchmarks baselines thresholds
  roadmaps backlogs sprints epics defects bugs fixes patches hotfixes
  alerts pages escalations outages postmortems retrospectives runbooks playbooks handbooks templates forms
  requisitions quotations warranties rebates discounts credits
  estates trusts deductions refunds liabilities equities
  batches lots runs cycles yields tolerances scrap downtime changeovers setups startups
  crops harvests herds fields greenhouses orchards vineyards farms ranches mills refineries terminals ports docks
  flights gates runways hangars cabins crews passengers fares cargo freight manifests
  attendees exhibitors speakers panels booths venues
  spreadsheets calendars inboxes agendas minutes memos letters envelopes mailings labels barcodes scanners printers
  carts dollies forklifts conveyors racks bins totes cartons crates skids
  wards units bays beds gurneys monitors ventilators syringes catheters dressings
  hazards
`);

/** Uncountable subjects of work. */
export const MASS_NOUNS = words(`
  quality safety service support data information inventory compliance security performance growth communication
  documentation training planning research analysis reporting feedback guidance leadership ownership accountability
  collaboration teamwork efficiency accuracy productivity reliability availability scalability usability accessibility
  maintenance logistics procurement sourcing purchasing budgeting forecasting scheduling staffing recruiting onboarding
  hospitality cleanliness sanitation hygiene wellness nutrition fitness health
  software hardware infrastructure networking storage observability monitoring automation testing tooling deployment
  design engineering architecture development innovation strategy governance risk oversight
  finance accounting payroll billing revenue credit tax treasury auditing underwriting lending banking
  marketing branding advertising content messaging outreach engagement retention acquisition conversion awareness
  sales prospecting negotiation pricing merchandising fulfillment distribution transportation warehousing receiving
  manufacturing production assembly fabrication machining welding packaging labeling shipping handling
  construction carpentry plumbing wiring roofing framing drywall concrete masonry landscaping excavation demolition
  education instruction curriculum assessment literacy numeracy tutoring mentoring coaching counseling advising
  nursing pharmacy radiology surgery oncology cardiology pediatrics obstetrics geriatrics rehabilitation
  law litigation privacy
  administration coordination correspondence filing bookkeeping reception
  equity diversity inclusion belonging fairness integrity respect trust transparency curiosity humility kindness
  sustainability conservation energy recycling
  excellence craftsmanship precision consistency speed discipline focus judgment initiative creativity resilience
  momentum scale impact value progress success recognition flexibility autonomy stability balance purpose
  food coffee catering baking pastry produce meat seafood dairy grocery apparel footwear
  furniture electronics cosmetics jewelry garden
  e-commerce omnichannel dispatch routing
  patience empathy stamina dexterity attentiveness punctuality professionalism courtesy diplomacy tact
  throughput latency uptime capacity demand supply turnover shrink margin spend cashflow liquidity solvency
`);

/** Transitive verbs in the base form. */
export const VERBS = words(`
  support manage improve deliver build maintain develop ensure provide review coordinate create lead help prepare
  monitor track identify resolve communicate plan design implement test analyze document process handle
  assist organize train partner drive own perform complete follow update report evaluate assess
  prioritize schedule operate inspect repair install configure deploy automate optimize streamline
  standardize scale measure forecast budget negotiate source purchase procure receive ship load unload pick pack
  stock restock label count reconcile audit verify validate approve authorize record enter file route dispatch
  greet serve welcome educate teach mentor coach guide advise counsel motivate recognize recruit
  interview onboard hire retain engage grow expand launch promote market sell pitch close renew upsell prospect
  research investigate explore discover define refine clarify simplify translate interpret summarize present
  write edit draft publish produce shoot film photograph illustrate sketch model prototype iterate
  calibrate troubleshoot diagnose treat administer triage chart dispense
  compound cook bake grill plate garnish clean sanitize disinfect sweep mop polish restore
  weld cut fabricate machine assemble solder wire frame pour finish sand paint coat seal insulate
  navigate escort patrol secure protect guard safeguard defend enforce
  uphold champion advocate represent mediate arbitrate litigate settle
  balance allocate invest underwrite price quote bill invoice collect disburse pay reimburse
  migrate refactor architect integrate instrument benchmark profile debug patch harden encrypt
  curate moderate cultivate nurture foster sustain strengthen reinforce elevate accelerate transform modernize
  reduce minimize eliminate prevent mitigate escalate de-escalate
  shape influence inspire empower enable unblock align connect unify consolidate centralize

`);

export const ADVERBS = words(`
  effectively safely accurately quickly efficiently consistently clearly closely regularly independently proactively
  professionally courteously promptly thoroughly carefully continuously reliably collaboratively confidently
  creatively strategically respectfully patiently diligently responsibly transparently securely sustainably
`);

/** The people a team serves. */
export const STAKEHOLDERS = words(`
  customers clients patients students members guests users partners shoppers residents families employees
  physicians nurses caregivers providers engineers developers analysts researchers scientists teachers parents
  drivers carriers suppliers vendors retailers distributors brokers investors shareholders lenders borrowers
  homeowners tenants landlords travelers diners visitors fans subscribers readers listeners viewers advertisers
  merchants sellers buyers policyholders beneficiaries claimants veterans seniors volunteers donors citizens
  taxpayers agencies municipalities hospitals clinics pharmacies schools universities nonprofits startups enterprises
  manufacturers growers farmers contractors builders architects designers creators publishers broadcasters athletes
`);

/** Benefits employers list. */
export const BENEFITS: readonly string[] = `medical, dental and vision insurance|a 401(k) plan with company match|paid time off and paid holidays|
paid parental leave|tuition reimbursement|flexible spending accounts|a health savings account with employer contribution|
life and disability insurance|an employee assistance program|employee discounts|commuter benefits|a wellness stipend|
professional development funds|flexible schedules|remote work options|a home office stipend|company-paid certifications|
on-site parking|free meals in our on-site café|a fitness center membership|pet insurance|student loan repayment assistance|
paid volunteer days|a referral bonus program|an annual performance bonus|equity in a growing company|a pension plan|
overtime pay|shift differentials for nights and weekends|weekly pay|daily pay options|uniforms provided|
paid training from day one|career advancement opportunities|a sign-on bonus|relocation assistance|
25 days of annual leave plus bank holidays|a company car or car allowance|private medical insurance|
a cycle-to-work scheme|childcare vouchers|a season ticket loan|an employee stock purchase plan|sabbatical leave|
mental health support|fertility and family-forming benefits|an annual learning budget|hybrid working|
summer Fridays|free parking|subsidized meals|a clothing allowance|a tool allowance`
  .replace(/\n/g, '')
  .split('|');

/** Words with accents and hyphenated terms that real postings carry. */
export const SPECIAL_TERMS = words(`
  résumé café naïve façade entrée protégé rôle déjà-vu crème jalapeño sauté purée soufflé
  full-time part-time on-call e-commerce well-being follow-up co-workers self-starter high-quality decision-making
  problem-solving time-management record-keeping client-facing fast-growing forward-thinking
`);

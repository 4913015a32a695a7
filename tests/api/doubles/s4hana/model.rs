//! The entity data model the double serves: the six services of s4hana.md §1
//! with the entity sets, properties (type, length, precision/scale, key,
//! read-only, ETag source, `sap:unit`) and navigation properties the reference
//! names. One table drives everything: the JSON and Atom answers, `$filter`
//! type checks, `$select`/`$expand` validation, write validation and the
//! hand-made `$metadata` document.

/// The EDM type of a property (s4hana.md §1 legend, §3.2 wire forms).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `Edm.String`, MaxLength (0 = none).
    Str(u32),
    /// `Edm.Decimal`, Precision/Scale.
    Dec(u8, u8),
    /// `Edm.DateTime` with Precision 0: `/Date(ms)/`, midnight UTC, or null.
    Date,
    /// `Edm.DateTimeOffset` with a precision: `/Date(ms+0000)/`.
    Dto(u8),
    Bool,
    Guid,
}

impl Kind {
    pub fn edm(self) -> &'static str {
        match self {
            Kind::Str(_) => "Edm.String",
            Kind::Dec(..) => "Edm.Decimal",
            Kind::Date => "Edm.DateTime",
            Kind::Dto(_) => "Edm.DateTimeOffset",
            Kind::Bool => "Edm.Boolean",
            Kind::Guid => "Edm.Guid",
        }
    }
}

/// What a decimal's `sap:unit` points at: a currency code (the amount has the
/// currency's decimals on the wire) or a unit of measure (the unit's decimals).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    Currency(&'static str),
    Measure(&'static str),
}

impl Unit {
    pub fn property(self) -> &'static str {
        match self {
            Unit::Currency(property) | Unit::Measure(property) => property,
        }
    }
}

#[derive(Debug, Clone)]
pub struct Prop {
    pub name: &'static str,
    pub kind: Kind,
    pub key: bool,
    pub updatable: bool,
    /// `ConcurrencyMode="Fixed"`: the entity has an ETag built from it.
    pub etag: bool,
    pub filterable: bool,
    pub unit: Option<Unit>,
}

impl Prop {
    fn new(name: &'static str, kind: Kind) -> Prop {
        Prop {
            name,
            kind,
            key: false,
            updatable: true,
            etag: false,
            filterable: true,
            unit: None,
        }
    }
    fn key(mut self) -> Prop {
        self.key = true;
        self
    }
    fn ro(mut self) -> Prop {
        self.updatable = false;
        self
    }
    fn etag(mut self) -> Prop {
        self.etag = true;
        self
    }
    fn no_filter(mut self) -> Prop {
        self.filterable = false;
        self
    }
    fn currency(mut self, property: &'static str) -> Prop {
        self.unit = Some(Unit::Currency(property));
        self
    }
    fn measure(mut self, property: &'static str) -> Prop {
        self.unit = Some(Unit::Measure(property));
        self
    }
}

/// A navigation property: the target set and the properties that join them
/// (parent property, child property). The join lives here only; the
/// `$metadata` carries no `ReferentialConstraint`, as S/4's does not.
#[derive(Debug, Clone)]
pub struct Nav {
    pub name: &'static str,
    pub target: &'static str,
    pub many: bool,
    pub join: &'static [(&'static str, &'static str)],
}

#[derive(Debug, Clone)]
pub struct EntitySet {
    pub name: &'static str,
    pub type_name: &'static str,
    pub props: Vec<Prop>,
    pub navs: Vec<Nav>,
    pub creatable: bool,
    pub updatable: bool,
    pub deletable: bool,
    /// The property holding the sales order number when rows of this set
    /// belong to one order (the per-user order visibility applies).
    pub order_property: Option<&'static str>,
}

impl EntitySet {
    pub fn prop(&self, name: &str) -> Option<&Prop> {
        self.props.iter().find(|prop| prop.name == name)
    }
    pub fn nav(&self, name: &str) -> Option<&Nav> {
        self.navs.iter().find(|nav| nav.name == name)
    }
    pub fn keys(&self) -> impl Iterator<Item = &Prop> {
        self.props.iter().filter(|prop| prop.key)
    }
    pub fn etag_prop(&self) -> Option<&Prop> {
        self.props.iter().find(|prop| prop.etag)
    }
}

/// A function import (all POST, parameters Edm.String as URL literals).
#[derive(Debug, Clone)]
pub struct Function {
    pub name: &'static str,
    pub parameters: &'static [&'static str],
}

#[derive(Debug, Clone)]
pub struct Service {
    pub name: &'static str,
    pub namespace: &'static str,
    pub sets: Vec<EntitySet>,
    pub functions: Vec<Function>,
}

impl Service {
    pub fn set(&self, name: &str) -> Option<&EntitySet> {
        self.sets.iter().find(|set| set.name == name)
    }
    pub fn function(&self, name: &str) -> Option<&Function> {
        self.functions.iter().find(|function| function.name == name)
    }
}

/// The decimals a currency has on the wire (ISO 4217 minor units).
pub fn currency_decimals(code: &str) -> u8 {
    match code {
        "JPY" | "KRW" => 0,
        "KWD" | "BHD" => 3,
        _ => 2,
    }
}

/// The decimals a unit of measure has on the wire.
pub fn unit_decimals(unit: &str) -> u8 {
    match unit {
        "KG" | "L" | "M" => 3,
        _ => 0,
    }
}

fn s(name: &'static str, length: u32) -> Prop {
    Prop::new(name, Kind::Str(length))
}
fn dec(name: &'static str, precision: u8, scale: u8) -> Prop {
    Prop::new(name, Kind::Dec(precision, scale))
}
fn date(name: &'static str) -> Prop {
    Prop::new(name, Kind::Date)
}
fn boolean(name: &'static str) -> Prop {
    Prop::new(name, Kind::Bool)
}
fn nav(
    name: &'static str,
    target: &'static str,
    many: bool,
    join: &'static [(&'static str, &'static str)],
) -> Nav {
    Nav {
        name,
        target,
        many,
        join,
    }
}

#[allow(clippy::too_many_arguments)]
fn set(
    name: &'static str,
    type_name: &'static str,
    props: Vec<Prop>,
    navs: Vec<Nav>,
    (creatable, updatable, deletable): (bool, bool, bool),
    order_property: Option<&'static str>,
) -> EntitySet {
    EntitySet {
        name,
        type_name,
        props,
        navs,
        creatable,
        updatable,
        deletable,
        order_property,
    }
}

const CRUD: (bool, bool, bool) = (true, true, true);
const READ_ONLY: (bool, bool, bool) = (false, false, false);
const UPDATE_ONLY: (bool, bool, bool) = (false, true, false);

const ORDER: &[(&str, &str)] = &[("SalesOrder", "SalesOrder")];
const ORDER_ITEM: &[(&str, &str)] = &[
    ("SalesOrder", "SalesOrder"),
    ("SalesOrderItem", "SalesOrderItem"),
];

fn pricing_element_props(item: bool) -> Vec<Prop> {
    let mut props = vec![s("SalesOrder", 10).key().ro()];
    if item {
        props.push(s("SalesOrderItem", 6).key().ro());
    }
    props.extend([
        s("PricingProcedureStep", 3).key().ro(),
        s("PricingProcedureCounter", 3).key().ro(),
        s("ConditionType", 4),
        dec("ConditionRateValue", 24, 9),
        s("ConditionCurrency", 5),
        dec("ConditionQuantity", 5, 0).measure("ConditionQuantityUnit"),
        s("ConditionQuantityUnit", 3),
        dec("ConditionAmount", 16, 3)
            .currency("TransactionCurrency")
            .ro(),
        s("TransactionCurrency", 5),
        dec("ConditionBaseValue", 24, 9).ro(),
        s("ConditionCalculationType", 3).ro(),
        s("ConditionRecord", 10).ro(),
        boolean("ConditionIsManuallyChanged").ro(),
        s("ConditionInactiveReason", 1).ro(),
        boolean("ConditionIsForStatistics").ro(),
        s("ConditionCategory", 1).ro(),
    ]);
    props
}

fn sales_order_service() -> Service {
    let sales_order = set(
        "A_SalesOrder",
        "A_SalesOrderType",
        vec![
            s("SalesOrder", 10).key(),
            s("SalesOrderType", 4),
            s("SalesOrganization", 4),
            s("DistributionChannel", 2),
            s("OrganizationDivision", 2),
            s("SoldToParty", 10),
            s("PurchaseOrderByCustomer", 35),
            date("CreationDate").ro(),
            date("LastChangeDate").ro(),
            s("CreatedByUser", 12).ro(),
            Prop::new("LastChangeDateTime", Kind::Dto(7)).ro().etag(),
            date("SalesOrderDate"),
            date("PricingDate"),
            date("RequestedDeliveryDate"),
            dec("TotalNetAmount", 16, 3)
                .currency("TransactionCurrency")
                .ro(),
            s("TransactionCurrency", 5),
            s("DeliveryBlockReason", 2),
            s("HeaderBillingBlockReason", 2),
            s("TotalCreditCheckStatus", 1).ro(),
            s("OverallSDProcessStatus", 1).ro(),
            s("OverallTotalDeliveryStatus", 1).ro(),
            s("OverallSDDocumentRejectionSts", 1).ro(),
            s("SalesDocApprovalStatus", 1).ro(),
            s("SalesOrderApprovalReason", 4).ro(),
            s("ShippingCondition", 2),
            s("CustomerPaymentTerms", 4),
            s("IncotermsClassification", 3),
        ],
        vec![
            nav("to_Item", "A_SalesOrderItem", true, ORDER),
            nav("to_Partner", "A_SalesOrderHeaderPartner", true, ORDER),
            nav(
                "to_PricingElement",
                "A_SalesOrderHeaderPrElement",
                true,
                ORDER,
            ),
            nav("to_Text", "A_SalesOrderText", true, ORDER),
        ],
        CRUD,
        Some("SalesOrder"),
    );
    let item = set(
        "A_SalesOrderItem",
        "A_SalesOrderItemType",
        vec![
            s("SalesOrder", 10).key().ro(),
            s("SalesOrderItem", 6).key(),
            s("Material", 40),
            s("SalesOrderItemText", 40),
            dec("RequestedQuantity", 15, 3).measure("RequestedQuantityUnit"),
            s("RequestedQuantityUnit", 3),
            dec("NetAmount", 16, 3).currency("TransactionCurrency").ro(),
            s("TransactionCurrency", 5).ro(),
            s("ItemBillingBlockReason", 2),
            s("SalesDocumentRjcnReason", 2),
            s("SDProcessStatus", 1).ro(),
            s("DeliveryStatus", 1).ro(),
        ],
        vec![
            nav(
                "to_PricingElement",
                "A_SalesOrderItemPrElement",
                true,
                ORDER_ITEM,
            ),
            nav(
                "to_ScheduleLine",
                "A_SalesOrderScheduleLine",
                true,
                ORDER_ITEM,
            ),
            nav("to_Partner", "A_SalesOrderItemPartner", true, ORDER_ITEM),
            nav("to_Text", "A_SalesOrderItemText", true, ORDER_ITEM),
            nav("to_SalesOrder", "A_SalesOrder", false, ORDER),
        ],
        CRUD,
        Some("SalesOrder"),
    );
    let header_partner = set(
        "A_SalesOrderHeaderPartner",
        "A_SalesOrderHeaderPartnerType",
        vec![
            s("SalesOrder", 10).key().ro(),
            s("PartnerFunction", 2).key(),
            s("Customer", 10),
            s("Supplier", 10),
            s("Personnel", 8),
            s("ContactPerson", 10),
            s("AddressID", 10),
        ],
        Vec::new(),
        UPDATE_ONLY,
        Some("SalesOrder"),
    );
    let item_partner = set(
        "A_SalesOrderItemPartner",
        "A_SalesOrderItemPartnerType",
        vec![
            s("SalesOrder", 10).key().ro(),
            s("SalesOrderItem", 6).key().ro(),
            s("PartnerFunction", 2).key(),
            s("Customer", 10),
            s("Supplier", 10),
            s("Personnel", 8),
            s("ContactPerson", 10),
        ],
        Vec::new(),
        UPDATE_ONLY,
        Some("SalesOrder"),
    );
    let header_price = set(
        "A_SalesOrderHeaderPrElement",
        "A_SalesOrderHeaderPrElementType",
        pricing_element_props(false),
        Vec::new(),
        UPDATE_ONLY,
        Some("SalesOrder"),
    );
    let item_price = set(
        "A_SalesOrderItemPrElement",
        "A_SalesOrderItemPrElementType",
        pricing_element_props(true),
        Vec::new(),
        UPDATE_ONLY,
        Some("SalesOrder"),
    );
    // The text's ETag is its `LongText` (an update needs `If-Match`: 428
    // without, 412 when the text changed since it was read).
    let text = set(
        "A_SalesOrderText",
        "A_SalesOrderTextType",
        vec![
            s("SalesOrder", 10).key().ro(),
            s("Language", 2).key(),
            s("LongTextID", 4).key(),
            s("LongText", 0).no_filter().etag(),
        ],
        Vec::new(),
        UPDATE_ONLY,
        Some("SalesOrder"),
    );
    let item_text = set(
        "A_SalesOrderItemText",
        "A_SalesOrderItemTextType",
        vec![
            s("SalesOrder", 10).key().ro(),
            s("SalesOrderItem", 6).key().ro(),
            s("Language", 2).key(),
            s("LongTextID", 4).key(),
            s("LongText", 0).no_filter(),
        ],
        Vec::new(),
        UPDATE_ONLY,
        Some("SalesOrder"),
    );
    let schedule_line = set(
        "A_SalesOrderScheduleLine",
        "A_SalesOrderScheduleLineType",
        vec![
            s("SalesOrder", 10).key().ro(),
            s("SalesOrderItem", 6).key().ro(),
            s("ScheduleLine", 4).key().ro(),
            date("RequestedDeliveryDate").ro(),
            date("ConfirmedDeliveryDate").ro(),
            s("DelivBlockReasonForSchedLine", 2).ro(),
        ],
        Vec::new(),
        READ_ONLY,
        Some("SalesOrder"),
    );
    Service {
        name: "API_SALES_ORDER_SRV",
        namespace: "API_SALES_ORDER_SRV",
        sets: vec![
            sales_order,
            item,
            header_partner,
            item_partner,
            header_price,
            item_price,
            text,
            item_text,
            schedule_line,
        ],
        functions: vec![
            Function {
                name: "releaseApprovalRequest",
                parameters: &["SalesOrder"],
            },
            Function {
                name: "rejectApprovalRequest",
                parameters: &["SalesOrder"],
            },
        ],
    }
}

fn business_partner_service() -> Service {
    const PARTNER: &[(&str, &str)] = &[("BusinessPartner", "BusinessPartner")];
    const CUSTOMER: &[(&str, &str)] = &[("Customer", "Customer")];
    Service {
        name: "API_BUSINESS_PARTNER",
        namespace: "API_BUSINESS_PARTNER",
        sets: vec![
            set(
                "A_BusinessPartner",
                "A_BusinessPartnerType",
                vec![
                    s("BusinessPartner", 10).key(),
                    s("Customer", 10).ro(),
                    s("BusinessPartnerFullName", 81).ro(),
                    s("OrganizationBPName1", 40),
                ],
                vec![
                    nav(
                        "to_BusinessPartnerAddress",
                        "A_BusinessPartnerAddress",
                        true,
                        PARTNER,
                    ),
                    nav(
                        "to_Customer",
                        "A_Customer",
                        false,
                        &[("Customer", "Customer")],
                    ),
                ],
                CRUD,
                None,
            ),
            set(
                "A_BusinessPartnerAddress",
                "A_BusinessPartnerAddressType",
                vec![
                    s("BusinessPartner", 10).key(),
                    s("AddressID", 10).key(),
                    s("StreetName", 60),
                    s("HouseNumber", 10),
                    s("PostalCode", 10),
                    s("CityName", 40),
                    s("Country", 3),
                    s("Region", 3),
                    s("POBox", 10),
                    s("Language", 2),
                    s("FullName", 80).ro(),
                    Prop::new("ValidityStartDate", Kind::Dto(0)),
                    Prop::new("ValidityEndDate", Kind::Dto(0)),
                    Prop::new("AddressUUID", Kind::Guid).ro(),
                    s("AddressTimeZone", 6),
                ],
                Vec::new(),
                CRUD,
                None,
            ),
            set(
                "A_Customer",
                "A_CustomerType",
                vec![
                    s("Customer", 10).key(),
                    s("CustomerName", 80).ro(),
                    s("CustomerFullName", 220).ro(),
                    s("CustomerAccountGroup", 4),
                    s("OrderIsBlockedForCustomer", 2),
                    s("DeliveryIsBlocked", 2),
                    s("BillingIsBlockedForCustomer", 2),
                    boolean("PostingIsBlocked"),
                    boolean("DeletionIndicator"),
                ],
                vec![nav(
                    "to_CustomerSalesArea",
                    "A_CustomerSalesArea",
                    true,
                    CUSTOMER,
                )],
                UPDATE_ONLY,
                None,
            ),
            set(
                "A_CustomerSalesArea",
                "A_CustomerSalesAreaType",
                vec![
                    s("Customer", 10).key(),
                    s("SalesOrganization", 4).key(),
                    s("DistributionChannel", 2).key(),
                    s("Division", 2).key(),
                    s("CustomerPaymentTerms", 4),
                    s("ShippingCondition", 2),
                    s("IncotermsClassification", 3),
                    s("IncotermsLocation1", 70),
                    s("Currency", 5),
                    s("CustomerPriceGroup", 2),
                    s("PriceListType", 2),
                    s("CreditControlArea", 4),
                    s("OrderIsBlockedForCustomer", 2),
                    s("DeliveryIsBlockedForCustomer", 2),
                    s("BillingIsBlockedForCustomer", 2),
                ],
                Vec::new(),
                CRUD,
                None,
            ),
        ],
        functions: Vec::new(),
    }
}

fn credit_management_service() -> Service {
    const PARTNER: &[(&str, &str)] = &[("BusinessPartner", "BusinessPartner")];
    Service {
        name: "API_CRDTMBUSINESSPARTNER",
        namespace: "cds_api_crdtmbusinesspartner",
        sets: vec![
            set(
                "CreditMgmtBusinessPartner",
                "CreditMgmtBusinessPartnerType",
                vec![
                    s("BusinessPartner", 10).key(),
                    s("CreditRiskClass", 3),
                    s("CalculatedCreditRiskClass", 3).ro(),
                    s("CreditCheckRule", 10),
                    s("CreditScoreAndLimitCalcRule", 10),
                    s("CreditWorthinessScoreValue", 10),
                    s("CrdtMgmtBusinessPartnerGroup", 4),
                ],
                vec![nav(
                    "to_CreditMgmtAccountTP",
                    "CreditManagementAccount",
                    true,
                    PARTNER,
                )],
                UPDATE_ONLY,
                None,
            ),
            set(
                "CreditManagementAccount",
                "CreditManagementAccountType",
                vec![
                    s("BusinessPartner", 10).key(),
                    s("CreditSegment", 10).key(),
                    dec("CreditLimitAmount", 15, 3).currency("CreditSegmentCurrency"),
                    s("CreditSegmentCurrency", 5),
                    date("CreditLimitValidityEndDate"),
                    date("CreditLimitLastChangeDate"),
                    dec("CreditLimitCalculatedAmount", 15, 3).currency("CreditSegmentCurrency"),
                    dec("CreditLimitRequestedAmount", 15, 3).currency("CreditSegmentCurrency"),
                    boolean("CreditLimitIsZero"),
                    boolean("CrdtLmtIsReqdFrmAutomCalc"),
                    date("CreditLimitReqdValidityEndDate"),
                    date("CreditLimitRequestDate"),
                    boolean("CreditAccountIsBlocked"),
                    s("CreditAccountBlockReason", 2),
                    date("CreditAccountResubmissionDate"),
                    boolean("BusinessPartnerIsCritical"),
                ],
                vec![nav(
                    "to_CrdtMBusinessPartnerTP",
                    "CreditMgmtBusinessPartner",
                    false,
                    PARTNER,
                )],
                CRUD,
                None,
            ),
        ],
        functions: Vec::new(),
    }
}

fn journal_entry_item_service() -> Service {
    Service {
        name: "API_OPLACCTGDOCITEMCUBE_SRV",
        namespace: "API_OPLACCTGDOCITEMCUBE_SRV",
        sets: vec![set(
            "A_OperationalAcctgDocItemCube",
            "A_OperationalAcctgDocItemCubeType",
            vec![
                s("CompanyCode", 4).key(),
                s("FiscalYear", 4).key(),
                s("AccountingDocument", 10).key(),
                s("AccountingDocumentItem", 3).key(),
                s("Customer", 10),
                s("FinancialAccountType", 1),
                boolean("IsCleared"),
                s("ClearingAccountingDocument", 10),
                date("ClearingDate"),
                s("DebitCreditCode", 1),
                dec("AmountInCompanyCodeCurrency", 24, 3).currency("CompanyCodeCurrency"),
                s("CompanyCodeCurrency", 5),
                date("NetDueDate"),
                date("PostingDate"),
                date("DocumentDate"),
                s("AccountingDocumentType", 2),
                s("SalesDocument", 10),
                s("BillingDocument", 10),
                s("CreditControlArea", 4),
            ]
            .into_iter()
            .map(Prop::ro)
            .collect(),
            Vec::new(),
            READ_ONLY,
            None,
        )],
        functions: Vec::new(),
    }
}

fn pricing_condition_service() -> Service {
    const RECORD: &[(&str, &str)] = &[("ConditionRecord", "ConditionRecord")];
    Service {
        name: "API_SLSPRICINGCONDITIONRECORD_SRV",
        namespace: "API_SLSPRICINGCONDITIONRECORD_SRV",
        sets: vec![
            set(
                "A_SlsPrcgCndnRecdValidity",
                "A_SlsPrcgCndnRecdValidityType",
                vec![
                    s("ConditionRecord", 10).key(),
                    date("ConditionValidityEndDate").key(),
                    date("ConditionValidityStartDate"),
                    s("ConditionType", 4),
                    s("ConditionApplication", 2),
                    s("SalesOrganization", 4),
                    s("DistributionChannel", 2),
                    s("Division", 2),
                    s("Customer", 10),
                    s("SoldToParty", 10),
                    s("Material", 40),
                    s("CustomerPriceGroup", 2),
                    s("PriceListType", 2),
                    s("ETag", 40).ro().etag(),
                ],
                vec![nav(
                    "to_SlsPrcgConditionRecord",
                    "A_SlsPrcgConditionRecord",
                    false,
                    RECORD,
                )],
                UPDATE_ONLY,
                None,
            ),
            set(
                "A_SlsPrcgConditionRecord",
                "A_SlsPrcgConditionRecordType",
                vec![
                    s("ConditionRecord", 10).key(),
                    dec("ConditionRateValue", 12, 3).currency("ConditionRateValueUnit"),
                    s("ConditionRateValueUnit", 5),
                    s("ConditionCurrency", 5),
                    dec("ConditionQuantity", 5, 0).measure("ConditionQuantityUnit"),
                    s("ConditionQuantityUnit", 3),
                    s("ConditionType", 4),
                    s("ConditionTable", 3),
                    s("ConditionCalculationType", 1),
                    date("ConditionValidityStartDate"),
                    date("ConditionValidityEndDate"),
                    boolean("ConditionIsDeleted"),
                    s("ConditionSequentialNumber", 2),
                    s("ETag", 40).ro().etag(),
                ],
                vec![nav(
                    "to_SlsPrcgCndnRecdValidity",
                    "A_SlsPrcgCndnRecdValidity",
                    true,
                    RECORD,
                )],
                CRUD,
                None,
            ),
        ],
        functions: Vec::new(),
    }
}

fn credit_block_service() -> Service {
    Service {
        name: "API_SLS_DOC_WITH_CREDIT_BLOCK",
        namespace: "API_SLS_DOC_WITH_CREDIT_BLOCK",
        sets: vec![
            set(
                "A_CreditBlockedSalesDocument",
                "A_CreditBlockedSalesDocumentType",
                vec![
                    s("SalesDocument", 10).key(),
                    s("SDDocumentCategory", 4),
                    s("SalesDocumentType", 4),
                    s("SalesOrganization", 4),
                    s("DistributionChannel", 2),
                    s("OrganizationDivision", 2),
                    s("SoldToParty", 10),
                    s("CustomerCreditAccount", 10),
                    dec("TotalNetAmount", 16, 3).currency("TransactionCurrency"),
                    s("TransactionCurrency", 5),
                    dec("ReleasedCreditAmount", 16, 3).currency("TransactionCurrency"),
                    s("ControllingAreaCurrency", 5),
                    s("TotalCreditCheckStatus", 1),
                    s("CentralCreditCheckStatus", 1),
                    s("CentralCreditChkTechErrSts", 1),
                    s("FinDocCreditCheckStatus", 1),
                    s("OverallSDProcessStatus", 1),
                    date("CreditBlockReleaseDate"),
                    date("NextShippingDate"),
                    date("NextCreditCheckDate"),
                    s("CreatedByUser", 12),
                    s("LastChangedByUser", 12),
                    date("CreationDate"),
                    date("LastChangeDate"),
                ]
                .into_iter()
                .map(Prop::ro)
                .collect(),
                Vec::new(),
                READ_ONLY,
                Some("SalesDocument"),
            ),
            set(
                "A_SalesDocumentRjcnReason",
                "A_SalesDocumentRjcnReasonType",
                vec![
                    s("SalesDocumentRjcnReason", 2).key().ro(),
                    s("SalesDocumentRjcnReason_Text", 40).ro(),
                ],
                Vec::new(),
                READ_ONLY,
                None,
            ),
        ],
        functions: vec![
            Function {
                name: "CheckCreditBlock",
                parameters: &["SDDocumentCategory", "SalesDocument"],
            },
            Function {
                name: "ReleaseCreditBlock",
                parameters: &["SalesDocument", "SDDocumentCategory"],
            },
            Function {
                name: "RejectCreditBlock",
                parameters: &[
                    "SDDocumentCategory",
                    "SalesDocumentRjcnReason",
                    "SalesDocument",
                ],
            },
        ],
    }
}

/// The six services, in the order of s4hana.md §1.
pub fn services() -> Vec<Service> {
    vec![
        sales_order_service(),
        business_partner_service(),
        credit_management_service(),
        journal_entry_item_service(),
        pricing_condition_service(),
        credit_block_service(),
    ]
}
